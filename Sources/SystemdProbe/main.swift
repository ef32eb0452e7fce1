// Reports what socket activation handed this process, for SystemdSupportTests: one line per socket
// (`socket <fd> <name> <listening|not-listening>`), then whether each LISTEN_* variable is still set.
import CSystemd
import SystemdSupport

#if canImport(Glibc)
import Glibc
#endif

for socket in Systemd.listenedSockets() {
    let listening = sd_is_socket_unix(socket.descriptor, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0
    print("socket \(socket.descriptor) \(socket.name) \(listening ? "listening" : "not-listening")")
}
for name in ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"] {
    print("\(name) \(getenv(name) == nil ? "unset" : "set")")
}
