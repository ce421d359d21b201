/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What makes a file handle unforgeable: a MAC over it, keyed by a secret
 * of the export kept on disk (so that handles survive a restart, RFC
 * 1813 section 2.3.3 wants them to). Without it a client could name any
 * inode of the exported file system (ext4 accepts {inode, generation 0}
 * for any generation): security-21c8dd5.md finding 1.
 *
 * The MAC is SipHash-2-4 with its 128-bit output (Aumasson and
 * Bernstein, "SipHash: a fast short-input PRF", 2012): made for short
 * inputs like a 40-byte handle, a few hundred instructions, no library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include "nfs3d.h"

static inline uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static inline void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

#define SIPROUND                                                               \
	do {                                                                   \
		v0 += v1;                                                      \
		v1 = rotl(v1, 13) ^ v0;                                        \
		v0 = rotl(v0, 32);                                             \
		v2 += v3;                                                      \
		v3 = rotl(v3, 16) ^ v2;                                        \
		v0 += v3;                                                      \
		v3 = rotl(v3, 21) ^ v0;                                        \
		v2 += v1;                                                      \
		v1 = rotl(v1, 17) ^ v2;                                        \
		v2 = rotl(v2, 32);                                             \
	} while (0)

void nfs3d_mac(const unsigned char key[NFS3D_KEY_LEN], const void *msg,
	       size_t len, unsigned char out[NFS3D_MAC_LEN])
{
	const unsigned char *p = msg, *end = p + (len & ~(size_t)7);
	uint64_t k0 = le64(key), k1 = le64(key + 8), m, b;
	uint64_t v0 = k0 ^ 0x736f6d6570736575ull;
	uint64_t v1 = k1 ^ 0x646f72616e646f6dull ^ 0xee; /* 128-bit output */
	uint64_t v2 = k0 ^ 0x6c7967656e657261ull;
	uint64_t v3 = k1 ^ 0x7465646279746573ull;

	for (; p < end; p += 8) {
		m = le64(p);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	b = (uint64_t)len << 56;
	for (size_t i = 0; i < (len & 7); i++)
		b |= (uint64_t)p[i] << (8 * i);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xee;
	for (int i = 0; i < 4; i++)
		SIPROUND;
	put_le64(out, v0 ^ v1 ^ v2 ^ v3);
	v1 ^= 0xdd;
	for (int i = 0; i < 4; i++)
		SIPROUND;
	put_le64(out + 8, v0 ^ v1 ^ v2 ^ v3);
}

bool nfs3d_mac_equal(const unsigned char *a, const unsigned char *b)
{
	unsigned char d = 0;

	/* Whole length always: how long a compare took says nothing. */
	for (int i = 0; i < NFS3D_MAC_LEN; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

/* The key's directory: whoever may rename in it may swap the key for
 * one they know (the file's own mode would not stop them), so it must be
 * ours or root's and writable by no one else, unless sticky (/tmp: then
 * only a file's owner may move it, and the file must be ours). */
static int key_dir_check(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) ||
	    (st.st_uid != geteuid() && st.st_uid != 0) ||
	    ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)))
		return -EPERM;
	return 0;
}

/* The new key's name on disk (RFC 1813 section 4: handles must survive a
 * restart, a crash included): the directory's entry synced too. */
static int dir_sync(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Reads the key, or makes one: 16 random bytes in a new file of mode
 * 0600 (its directory made 0700 if absent), written whole before it
 * takes the name, so that two servers starting at once agree. Opened
 * O_NONBLOCK: a FIFO planted under the name must not hang the start
 * (it is then refused as not a regular file). */
int nfs3d_key_load(const char *path, unsigned char key[NFS3D_KEY_LEN])
{
	char tmp[4200], dir[4096], *slash;
	struct stat st;
	ssize_t n;
	int fd, err;

	if (strlen(path) >= sizeof(dir))
		return -ENAMETOOLONG;
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	/* The directory first, made 0700 when absent: a key in one that
	 * fails key_dir_check is neither made nor read. */
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	err = key_dir_check(dir);
	if (err)
		return err;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		if (getrandom(key, NFS3D_KEY_LEN, 0) != NFS3D_KEY_LEN)
			return -EIO;
		snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			return -errno;
		n = write(fd, key, NFS3D_KEY_LEN);
		err = n == NFS3D_KEY_LEN && fsync(fd) == 0 ? 0 : EIO;
		close(fd);
		if (!err && link(tmp, path) < 0)
			err = errno;
		unlink(tmp);
		if (err && err != EEXIST)
			return -err;
		err = dir_sync(dir);
		if (err)
			return err;
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	/* A key others may read or replace is no secret. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	n = read(fd, key, NFS3D_KEY_LEN);
	close(fd);
	return n == NFS3D_KEY_LEN && st.st_size == NFS3D_KEY_LEN ? 0 : -EINVAL;
}
