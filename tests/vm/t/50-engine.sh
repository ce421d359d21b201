# The verbs engine's own check suite (tests/vm/t_engine.c) on rxe.
# vm-timeout: 180
if [ ! -x ./tests/vm/t_engine ]; then
	echo "tests/vm/t_engine is not built (make check builds it)"
	exit 1
fi
exec ./tests/vm/t_engine
