#if canImport(Glibc)
import Glibc
#endif

/// One `recvmsg` of a Unix stream socket whose listener set `SO_PASSCRED` (and `SO_PASSPIDFD`), with the
/// credentials the kernel attached to the bytes (SEMANTICS I4).
///
/// One read never returns the bytes of two writers: with `SO_PASSCRED` set the kernel stops a read where the
/// writer's credentials change (`unix_stream_read_generic`), so the credentials name every byte read.
///
/// Descriptors passed with `SCM_RIGHTS` come back with the bytes (at most ``PassedDescriptors/maximum``; the
/// others are closed). The kernel ends a read after the bytes that carried descriptors
/// (`unix_stream_read_generic`), so they belong to the message those last bytes are part of.
enum CredentialedRead {
    case bytes([UInt8], FrameSender, PassedDescriptors)
    case wouldBlock
    case endOfFile
    case failed(errno: Int32)

    /// Reads what is there without blocking, up to `capacity` bytes.
    static func receive(descriptor: Int32, capacity: Int) -> CredentialedRead {
        // Room for SCM_CREDENTIALS (32 bytes) and SCM_PIDFD (24), and for an SCM_RIGHTS message of up to 30
        // descriptors: the kernel closes those that do not fit and says so with MSG_CTRUNC.
        var control = [UInt64](repeating: 0, count: 24)
        var controlLength = 0
        var truncated = false
        var failure: Int32 = 0
        let data = [UInt8](unsafeUninitializedCapacity: capacity) { dataBytes, initialized in
            var count = -1
            repeat {
                count = control.withUnsafeMutableBytes { controlBytes in
                    var vector = iovec(iov_base: dataBytes.baseAddress, iov_len: dataBytes.count)
                    return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                        var message = msghdr()
                        message.msg_iov = vectorPointer
                        message.msg_iovlen = 1
                        message.msg_control = controlBytes.baseAddress
                        message.msg_controllen = controlBytes.count
                        let count = recvmsg(
                            descriptor,
                            &message,
                            SocketConstants.dontWait | SocketConstants.controlCloseOnExec
                        )
                        controlLength = count >= 0 ? Int(message.msg_controllen) : 0
                        truncated = count >= 0 && message.msg_flags & Int32(MSG_CTRUNC) != 0
                        return count
                    }
                }
            } while count < 0 && errno == EINTR
            failure = count < 0 ? errno : 0
            initialized = max(0, count)
        }
        if failure != 0 {
            return failure == EAGAIN || failure == EWOULDBLOCK ? .wouldBlock : .failed(errno: failure)
        }
        let passed = PassedDescriptors()
        if truncated { passed.lost(1) }
        let sender = control.withUnsafeBytes {
            writer(in: UnsafeRawBufferPointer(rebasing: $0[..<controlLength]), passing: passed)
        }
        // Descriptors never come without bytes; should they, `passed` closes them here.
        guard !data.isEmpty else { return .endOfFile }
        return .bytes(data, sender, passed)
    }

    /// The sender named by the control messages; descriptors passed with `SCM_RIGHTS` go to `passed`.
    private static func writer(in control: UnsafeRawBufferPointer, passing passed: PassedDescriptors) -> FrameSender {
        let header = MemoryLayout<cmsghdr>.size
        var credentials: RawPeerCredentials?
        var pidfd: Int32 = -1
        var writerGone = false
        var offset = 0
        while offset + header <= control.count {
            let length = control.loadUnaligned(fromByteOffset: offset, as: Int.self)
            let level = control.loadUnaligned(fromByteOffset: offset + 8, as: Int32.self)
            let type = control.loadUnaligned(fromByteOffset: offset + 12, as: Int32.self)
            guard length >= header, offset + length <= control.count else { break }
            let body = offset + header
            let bodyLength = length - header
            if level == SOL_SOCKET {
                switch type {
                case SocketConstants.credentials where bodyLength >= 12:
                    credentials = RawPeerCredentials(
                        pid: control.loadUnaligned(fromByteOffset: body, as: Int32.self),
                        uid: control.loadUnaligned(fromByteOffset: body + 4, as: UInt32.self),
                        gid: control.loadUnaligned(fromByteOffset: body + 8, as: UInt32.self)
                    )
                case SocketConstants.pidfd where bodyLength >= 4:
                    if pidfd >= 0 { close(pidfd) }
                    pidfd = control.loadUnaligned(fromByteOffset: body, as: Int32.self)
                    // A kernel that cannot make a pidfd of a writer already reaped (before 6.15) passes the
                    // error instead: the writer is gone, and its pid may be another process's by now.
                    if pidfd < 0 { writerGone = true }
                case SocketConstants.rights:
                    for index in 0..<(bodyLength / 4) {
                        passed.take(control.loadUnaligned(fromByteOffset: body + 4 * index, as: Int32.self))
                    }
                default:
                    break
                }
            }
            offset += (length + 7) & ~7
        }
        guard let credentials, credentials.pid > 0 else {
            if pidfd >= 0 { close(pidfd) }
            return .unknown(reason: "it came without the writer's credentials")
        }
        if writerGone { return .unknown(reason: "its writer, pid \(credentials.pid), had exited when it was read") }
        return .process(
            MessageSender(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, pidfd: pidfd)
        )
    }
}
