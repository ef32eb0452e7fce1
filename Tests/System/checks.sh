# What the in-container scripts of the boot and package tests report and wait with; fail(), which says what of the
# units to show, is the sourcing script's own (geoclue-machine.sh has the one for GeoClue's). Sourced, not run.
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
