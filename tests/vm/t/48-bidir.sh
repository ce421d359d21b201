# Bi-directional RPC (RFC 8167): callbacks from dispatch functions and
# other threads under load both ways, backward credits, a backward call
# over the inline threshold, a forward call inside a callback, server
# and client killed.
# vm-timeout: 600
exec ./tests/vm/t_bidir
