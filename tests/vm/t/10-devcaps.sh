# Both rxe devices are PORT_ACTIVE, advertise memory windows of type 2
# (MEM_WINDOW_TYPE_2B) and the memory management extensions (Send With
# Invalidate), and allocate a type-2 window (tests/vm/devcaps.c).
# vm-timeout: 60
exec ./tests/vm/devcaps rxe0 rxe1
