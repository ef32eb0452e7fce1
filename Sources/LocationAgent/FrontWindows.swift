import Foundation
import JSON
import ProcessIdentity

/// What locd-agent tells locd of a desktop's picture: each window in front (L10) with what locd matches it by (L12).
enum FrontWindows {
    /// At most this many processes descending from one window are sent: locd bounds a window's descendants.
    static let maximumDescendants = 4096

    /// The `front` parameter of `SetDesktop`: nothing while locked, else the focused window and every window shown
    /// and not minimised, each with its names, process, executable and descendants.
    static func parameter(of picture: DesktopPicture, processes: () -> ProcessTree = ProcessTree.read) -> JSONValue {
        guard !picture.locked else { return .array([]) }
        let reader = AppIDReader()
        let facts = ProcessFacts()
        var windows: [JSONValue] = []
        var tree: ProcessTree?
        for window in picture.windows where window.focused || !window.minimized {
            var names: [String] = window.appID.map { [$0] } ?? []
            var object: JSONObject = [:]
            if let pid = window.pid, pid > 0 {
                object["pid"] = .int(Int64(pid))
                if let derived = reader.appID(of: pid)?.id, !names.contains(derived) { names.append(derived) }
                if let executable = facts.executable(of: pid) { object["executable"] = .string(executable) }
                if tree == nil { tree = processes() }
                let descendants = tree?.descendants(of: pid, limit: maximumDescendants) ?? []
                if !descendants.isEmpty { object["descendants"] = .array(descendants.map { .int(Int64($0)) }) }
            }
            object["names"] = .array(names.prefix(8).map { .string($0) })
            windows.append(.object(object))
        }
        return .array(windows)
    }
}

/// Each process's parent, read once from `/proc/PID/stat` (readable by every user), to find a window's descendants.
struct ProcessTree {
    var parents: [Int32: Int32]

    static func read() -> ProcessTree {
        var parents: [Int32: Int32] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let parent = Int32(fields[1]) { parents[pid] = parent }
        }
        return ProcessTree(parents: parents)
    }

    /// The processes descending from `pid`, at most `limit`, nearest first.
    func descendants(of pid: Int32, limit: Int) -> [Int32] {
        var children: [Int32: [Int32]] = [:]
        for (child, parent) in parents { children[parent, default: []].append(child) }
        var found: [Int32] = []
        var queue = children[pid, default: []].sorted()
        while let next = queue.first, found.count < limit {
            queue.removeFirst()
            found.append(next)
            queue += children[next, default: []].sorted()
        }
        return found
    }
}
