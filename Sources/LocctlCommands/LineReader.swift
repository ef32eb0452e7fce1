#if canImport(Glibc)
import Glibc
#endif

/// Reads whole lines from a file descriptor without blocking past what `poll` said is there.
///
/// The agent waits on the terminal and on locd's prompt stream at once, so it cannot use the
/// buffered `readLine()`, which may hold a line `poll` never sees.
struct LineReader {
    let descriptor: Int32
    private var buffer: [UInt8] = []
    private(set) var atEnd = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Reads what is available (call when `poll` reports the descriptor readable) and returns the
    /// complete lines, without their line ends.
    mutating func readAvailable() -> [String] {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &chunk, chunk.count)
        if count <= 0 {
            if count < 0 && (errno == EINTR || errno == EAGAIN) { return [] }
            atEnd = true
            // A last line without a newline still counts.
            defer { buffer.removeAll() }
            return buffer.isEmpty ? [] : [Self.text(buffer[...])]
        }
        buffer.append(contentsOf: chunk[..<count])
        var lines: [String] = []
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(Self.text(buffer[..<newline]))
            buffer.removeSubrange(...newline)
        }
        return lines
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        var line = String(decoding: bytes, as: UTF8.self)
        if line.hasSuffix("\r") { line.removeLast() }
        return line
    }
}
