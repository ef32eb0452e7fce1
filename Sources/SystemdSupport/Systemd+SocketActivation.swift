import CSystemd

#if canImport(Glibc)
import Glibc
#endif

extension Systemd {
    /// The sockets systemd passed this process (`LISTEN_FDS`), each with its `FileDescriptorName=`.
    ///
    /// Descriptors start at `SD_LISTEN_FDS_START` (3) and are marked close-on-exec. The `LISTEN_*`
    /// variables are unset, so a child the daemon starts does not take the sockets for its own; a
    /// second call therefore answers `[]`. Without socket activation, with `LISTEN_PID` naming another
    /// process, or on a malformed variable, the answer is `[]` and the daemon binds its own socket.
    /// A socket without a name is called `unknown`, as `sd_listen_fds_with_names(3)` reports it.
    package static func listenedSockets() -> [(descriptor: Int32, name: String)] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        let count = sd_listen_fds_with_names(1, &names)
        // The array (count strings and a terminating NULL) is ours to free, each string and then the array.
        defer {
            if let names {
                var index = 0
                while let name = names[index] {
                    free(name)
                    index += 1
                }
                free(names)
            }
        }
        guard count > 0 else { return [] }
        return (0..<Int(count)).map { index in
            let name = names?[index].map { String(cString: $0) } ?? "unknown"
            return (descriptor: SD_LISTEN_FDS_START + Int32(index), name: name)
        }
    }
}
