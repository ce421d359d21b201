# Bi-directional RPC (RFC 8167): callbacks from dispatch functions and
# other threads under load both ways, backward credits, a backward call
# over the inline threshold, a forward call inside a callback, server
# and client killed, unanswered callbacks closing the connection, a
# backward reply too big (SYSTEM_ERR), a client without a service
# (PROG_UNAVAIL); a raw-verbs peer sending malformed backward replies
# and calls under load, and the forward credit check beside them.
# vm-timeout: 600
exec ./tests/vm/t_bidir
