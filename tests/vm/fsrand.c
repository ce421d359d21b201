/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fsrand: a small random read/write/truncate exerciser in the manner of
 * fsx, for a file on an NFS mount (tests/vm/t/66-nfs3d.sh).
 *
 *   fsrand FILE OPS SEED MAXSIZE
 *
 * The file is opened with O_DIRECT, so every read and write is an NFS
 * READ or WRITE at the offset and length chosen (odd ones included: the
 * Linux client then adds its write-pad segment to a READ's write chunk),
 * and checked against a copy kept in memory; every 64 operations the
 * whole file is read back and compared. Exits 1 at the first difference,
 * printing where it is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng;

static uint64_t next(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static size_t below(size_t n)
{
	return n ? (size_t)(next() % n) : 0;
}

static int check(int fd, const char *shadow, size_t size, size_t off,
		 size_t len, char *buf, const char *what, unsigned int op)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, buf + done, len - done, (off_t)(off + done));
		if (n < 0) {
			fprintf(stderr,
				"fsrand: op %u %s: read %zu at %zu: %s\n", op,
				what, len, off, strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	if (off + done !=
	    (off < size ? (off + len < size ? off + len : size) : off)) {
		fprintf(stderr,
			"fsrand: op %u %s: read %zu bytes at %zu of a "
			"%zu-byte file\n",
			op, what, done, off, size);
		return -1;
	}
	for (size_t i = 0; i < done; i++)
		if (buf[i] != shadow[off + i]) {
			fprintf(stderr,
				"fsrand: op %u %s: byte %zu is %#x, "
				"expected %#x\n",
				op, what, off + i, (unsigned char)buf[i],
				(unsigned char)shadow[off + i]);
			return -1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long ops, maxsize;
	uint64_t nw = 0, nr = 0, nt = 0, bw = 0, br = 0;
	char *shadow, *buf;
	size_t size = 0;
	int fd;

	if (argc != 5) {
		fprintf(stderr, "usage: fsrand FILE OPS SEED MAXSIZE\n");
		return 2;
	}
	ops = strtoul(argv[2], NULL, 0);
	rng = strtoull(argv[3], NULL, 0) | 1;
	maxsize = strtoul(argv[4], NULL, 0);
	shadow = calloc(1, maxsize + 1);
	buf = malloc(maxsize + 1);
	if (!shadow || !buf || maxsize < 4096)
		return 2;
	/* FSRAND_BUFFERED: without O_DIRECT (local file systems want it
	 * aligned; NFS takes any offset and length). */
	fd = open(argv[1],
		  O_RDWR | O_CREAT | O_TRUNC |
		      (getenv("FSRAND_BUFFERED") ? 0 : O_DIRECT),
		  0644);
	if (fd < 0) {
		fprintf(stderr, "fsrand: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (unsigned int op = 1; op <= ops; op++) {
		unsigned int kind = (unsigned int)below(10);
		size_t off, len;

		if (kind < 5) { /* write */
			off = below(maxsize - 1);
			len = 1 + below(maxsize - off < 300000 ? maxsize - off
							       : 300000);
			for (size_t i = 0; i < len; i++)
				buf[i] = (char)next();
			if (pwrite(fd, buf, len, (off_t)off) != (ssize_t)len) {
				fprintf(stderr,
					"fsrand: op %u: write %zu at "
					"%zu: %s\n",
					op, len, off, strerror(errno));
				return 1;
			}
			memcpy(shadow + off, buf, len);
			if (off + len > size)
				size = off + len;
			nw++;
			bw += len;
		} else if (kind < 9) { /* read */
			off = below(size + 100);
			len = 1 + below(300000);
			if (off + len > maxsize)
				len = maxsize - off;
			if (check(fd, shadow, size, off, len, buf, "read", op))
				return 1;
			nr++;
			br += len;
		} else { /* truncate, shorter or longer */
			size_t to = below(maxsize);

			if (ftruncate(fd, (off_t)to) < 0) {
				fprintf(stderr,
					"fsrand: op %u: truncate to "
					"%zu: %s\n",
					op, to, strerror(errno));
				return 1;
			}
			if (to > size)
				memset(shadow + size, 0, to - size);
			else
				memset(shadow + to, 0, size - to);
			size = to;
			nt++;
		}
		if (op % 64 == 0 &&
		    check(fd, shadow, size, 0, size, buf, "full read", op))
			return 1;
	}
	if (check(fd, shadow, size, 0, size, buf, "final read", (unsigned)ops))
		return 1;
	close(fd);
	free(shadow);
	free(buf);
	printf("fsrand: %lu operations, no difference: %" PRIu64
	       " writes (%" PRIu64 " bytes), %" PRIu64 " reads (%" PRIu64
	       " bytes), %" PRIu64 " truncates, final size %zu\n",
	       ops, nw, bw, nr, br, nt, size);
	return 0;
}
