#!/bin/sh
# Test helper standing in for an MCP client process: starts a command in the background with this
# shell's own stdin (the same pipe, not a copy, so the command sees no EOF when this shell dies),
# writes the command's pid to a file, and waits. A test SIGKILLs this shell to check that Bouncer
# notices its parent is gone (field case F06 b).
# Usage: spawn-and-wait.sh PID_FILE COMMAND [ARG]...
pid_file=$1
shift
exec 3<&0
"$@" <&3 3<&- &
echo $! > "$pid_file.tmp" && mv "$pid_file.tmp" "$pid_file"
wait
