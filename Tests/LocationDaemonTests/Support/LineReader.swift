import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The lines a child process writes to a pipe, read as they come, each wait bounded by a deadline.
final class LineReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(_ pipe: Pipe) {
        descriptor = pipe.fileHandleForReading.fileDescriptor
    }

    /// The next whole line, or `nil` when none is whole by `deadline` or the writer closed the pipe.
    func next(by deadline: Date) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left * 1000) + 1) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[..<count])
        }
    }
}
