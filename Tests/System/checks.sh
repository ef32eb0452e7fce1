# What both in-container scripts of the boot test report and wait with; each defines its own fail(), which says
# what of its units to show. Sourced, not run.
pass() { echo "PASS: $*"; }
# Polls a condition (a shell command) every 50 ms until it holds or SECONDS run out.
wait_for() {
    local seconds=$1
    shift
    local deadline=$((SECONDS + seconds))
    until eval "$@"; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.05
    done
}
