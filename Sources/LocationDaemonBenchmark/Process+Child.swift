import Foundation

extension Process {
    /// Points the process at `arguments[0]` with the rest as its arguments and `environment` as its whole
    /// environment, and returns a handle on a new, empty log file at `logPath` for its output.
    func prepare(_ arguments: [String], environment: [String: String], logPath: String) -> FileHandle? {
        executableURL = URL(fileURLWithPath: arguments[0])
        self.arguments = Array(arguments.dropFirst())
        self.environment = environment
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        return FileHandle(forWritingAtPath: logPath)
    }
}
