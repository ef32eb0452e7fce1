# How the boot test (boot-test.sh) and the package test (deb-test.sh) boot systemd in a container: what they need,
# checked first (without it they print why and exit 0, so that `make test` runs everywhere), and a cgroup of their
# own for the launching shell, so that the container's systemd cannot adopt the host's root cgroup and move
# unrelated processes into it. Sourced, not run: the sourcing script sets test_name first, calls container_checks,
# then container_begin, which makes its work folder and cgroup and removes both when it exits.
skip() { echo "${test_name#locd-}: SKIPPED: $*"; exit 0; }

container_checks() {
    [ "$(id -u)" = 0 ] || skip "needs root to boot a container"
    command -v systemd-nspawn >/dev/null || skip "systemd-nspawn is not installed (Debian: systemd-container)"
    [ -d /sys/fs/cgroup ] || skip "no cgroup file system"
    [ -w /sys/fs/cgroup/systemd ] || [ -w /sys/fs/cgroup/unified ] || [ -w /sys/fs/cgroup/cgroup.procs ] ||
        skip "the cgroup file system is read-only here, so the test cannot give the container a cgroup of its own"
}

container_cgroups=()
# A cgroup of our own in every hierarchy that names systemd (hybrid: name=systemd and unified; v2: the root).
container_enter_cgroup() {
    local hierarchy
    for hierarchy in systemd unified; do
        if [ -d "/sys/fs/cgroup/$hierarchy" ] && [ -w "/sys/fs/cgroup/$hierarchy" ]; then
            mkdir -p "/sys/fs/cgroup/$hierarchy/$test_name"
            echo $$ > "/sys/fs/cgroup/$hierarchy/$test_name/cgroup.procs"
            container_cgroups+=("/sys/fs/cgroup/$hierarchy/$test_name")
        fi
    done
    if [ ${#container_cgroups[@]} -eq 0 ] && [ -f /sys/fs/cgroup/cgroup.procs ]; then
        mkdir -p "/sys/fs/cgroup/$test_name"
        echo $$ > "/sys/fs/cgroup/$test_name/cgroup.procs"
        container_cgroups+=("/sys/fs/cgroup/$test_name")
    fi
}

# Leaves the test cgroups before removing them (deepest first), and what systemd-nspawn leaves in /run of the
# machines named PREFIX*.
container_leave_cgroup() {
    local group parent
    for group in "${container_cgroups[@]}"; do
        parent=$(dirname "$group")
        echo $$ > "$parent/cgroup.procs" 2>/dev/null || true
        find "$group" -depth -type d -exec rmdir {} \; 2>/dev/null || true
    done
    rm -rf "/run/systemd/nspawn/$1"* 2>/dev/null || true
}

# Sets `work` to a new folder /var/tmp/PREFIX.XXXXXX and moves the shell into a cgroup of its own; at exit, however
# the script ends, both go (with what systemd-nspawn left in /run of the machines named PREFIX*), and the script's
# exit status stays.
container_begin() {
    container_prefix=$1
    work=$(mktemp -d "/var/tmp/$container_prefix.XXXXXX")
    trap container_end EXIT
    container_enter_cgroup
}

container_end() {
    local status=$?
    container_leave_cgroup "$container_prefix"
    rm -rf "$work"
    exit $status
}
