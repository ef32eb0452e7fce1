import FuzzTargets

#if canImport(Glibc)
import Glibc
#endif

// `locd-fuzz`: the fuzz targets of ``FuzzTarget``, chosen by `LOCD_FUZZ_TARGET`.
//
// Built by `Fuzz/run.sh` (`swift build --sanitize=fuzzer --sanitize=address -Xswiftc -DFUZZING`), it is a
// libFuzzer binary: libFuzzer's own main calls `LLVMFuzzerTestOneInput` and takes libFuzzer's arguments
// (corpus directories, `-max_total_time=…`). Built normally, it runs the files it is given through the target
// once each, to reproduce a crash: `LOCD_FUZZ_TARGET=nmea locd-fuzz crash-…`.

/// The selected target, read once: libFuzzer calls the entry point millions of times.
private let selected = getenv("LOCD_FUZZ_TARGET").flatMap { FuzzTarget(rawValue: String(cString: $0)) }

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = selected else {
        complain("set LOCD_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
        exit(2)
    }
    target.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
#else
@main
struct LocdFuzz {
    static func main() {
        guard let target = selected else {
            complain("set LOCD_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
            exit(2)
        }
        for path in CommandLine.arguments.dropFirst() {
            guard let file = fopen(path, "rb") else {
                complain("cannot open \(path)")
                exit(1)
            }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while case let count = fread(&chunk, 1, chunk.count, file), count > 0 { bytes += chunk[..<count] }
            fclose(file)
            target.run(bytes)
            print("ran \(path)")
        }
    }
}
#endif

/// Writes a line to standard error (Swift 6 forbids the global `stderr`).
private func complain(_ text: String) {
    let line = Array("locd-fuzz: \(text)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
