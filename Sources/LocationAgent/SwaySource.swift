import JSON

#if canImport(Glibc)
import Glibc
#endif

/// sway's IPC (`SWAYSOCK`): `get_tree` for the windows, and `subscribe` to `window` and `workspace` events, after
/// each of which the tree is asked for again (N7). The socket is non-blocking: ``readable()`` takes what is there.
final class SwaySource: DesktopSource {
    let name = "sway"
    let descriptor: Int32
    private var buffer: [UInt8] = []
    /// A `get_tree` sent and not answered; and whether an event came since it was sent, so another is needed.
    private var treeAsked = false
    private var treeStale = false
    private var last: DesktopPicture?

    private static let magic = Array("i3-ipc".utf8)
    private static let subscribe: UInt32 = 2
    private static let getTree: UInt32 = 4
    /// Replies bigger than this are not a tree locd-agent reads: a desktop of thousands of windows.
    private static let maximumMessage = 16 << 20

    /// Connects to sway's socket, subscribes, and asks for the tree.
    init(socketPath: String) throws(DesktopSourceFailure) {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw DesktopSourceFailure("cannot make a socket for sway: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(socket)
            throw DesktopSourceFailure("SWAYSOCK \(socketPath) is too long a socket path")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let error = errno
            close(socket)
            throw DesktopSourceFailure(
                "cannot connect to sway at SWAYSOCK \(socketPath): \(String(cString: strerror(error)))"
            )
        }
        descriptor = socket
        do {
            try send(Self.subscribe, Array(#"["window","workspace"]"#.utf8))
            try send(Self.getTree, [])
        } catch {
            close(socket)
            throw error
        }
        treeAsked = true
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(descriptor) }

    /// Reads what sway sent; returns the picture when a tree came that differs from the last one.
    func readable() throws(DesktopSourceFailure) -> DesktopPicture? {
        try fill()
        var newest: DesktopPicture?
        while let (type, payload) = try nextMessage() {
            if type & 0x8000_0000 != 0 {
                // An event: the tree changed; ask again once the tree asked for has come.
                if treeAsked { treeStale = true } else { try askTree() }
            } else if type == Self.getTree {
                treeAsked = false
                guard let tree = JSONValue.parse(payload) else {
                    throw DesktopSourceFailure("sway sent a tree that is not JSON")
                }
                newest = SwayTree.picture(of: tree)
                if treeStale { try askTree() }
            } else if type == Self.subscribe, JSONValue.parse(payload)?["success"]?.boolValue != true {
                throw DesktopSourceFailure("sway refused to send window and workspace events")
            }
        }
        guard let newest, newest != last else { return nil }
        last = newest
        return newest
    }

    private func askTree() throws(DesktopSourceFailure) {
        treeStale = false
        treeAsked = true
        try send(Self.getTree, [])
    }

    /// Reads every byte waiting, without blocking.
    private func fill() throws(DesktopSourceFailure) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, Int32(MSG_DONTWAIT))
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                guard buffer.count <= Self.maximumMessage + 14 else {
                    throw DesktopSourceFailure("sway sent a message larger than \(Self.maximumMessage) bytes")
                }
                continue
            }
            if count == 0 { throw DesktopSourceFailure("sway closed its IPC socket: the session ended") }
            if errno == EAGAIN || errno == EWOULDBLOCK { return }
            if errno == EINTR { continue }
            throw DesktopSourceFailure("reading sway's IPC socket failed: \(String(cString: strerror(errno)))")
        }
    }

    /// The next whole message in the buffer: its type and payload.
    private func nextMessage() throws(DesktopSourceFailure) -> (UInt32, ArraySlice<UInt8>)? {
        guard buffer.count >= 14 else { return nil }
        guard Array(buffer[0..<6]) == Self.magic else { throw DesktopSourceFailure("sway's IPC said something else") }
        let length = Int(Self.word(buffer, at: 6))
        let type = Self.word(buffer, at: 10)
        guard length <= Self.maximumMessage else {
            throw DesktopSourceFailure("sway sent a message larger than \(Self.maximumMessage) bytes")
        }
        guard buffer.count >= 14 + length else { return nil }
        let payload = ArraySlice(buffer[14..<(14 + length)])
        buffer.removeSubrange(0..<(14 + length))
        return (type, payload)
    }

    /// A message to sway: magic, length and type in the machine's byte order, then the payload.
    private func send(_ type: UInt32, _ payload: [UInt8]) throws(DesktopSourceFailure) {
        var bytes = Self.magic
        withUnsafeBytes(of: UInt32(payload.count)) { bytes += $0 }
        withUnsafeBytes(of: type) { bytes += $0 }
        bytes += payload
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard written > 0 else { throw DesktopSourceFailure("sway's IPC socket closed") }
            offset += written
        }
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        withUnsafeMutableBytes(of: &value) { raw in
            for index in 0..<4 { raw[index] = bytes[offset + index] }
        }
        return value
    }
}

/// The windows of sway's `get_tree`: every view (a node with a `pid` or an `app_id`), focused or not, minimised when
/// sway does not show it (its `visible`: its workspace is not on an output, or it is a hidden tab; the scratchpad's
/// never is).
enum SwayTree {
    static func picture(of tree: JSONValue) -> DesktopPicture {
        var windows: [DesktopWindow] = []
        collect(tree, visible: true, into: &windows)
        return DesktopPicture(windows: windows)
    }

    private static func collect(_ node: JSONValue, visible: Bool, into windows: inout [DesktopWindow]) {
        var shown = visible
        if node["type"]?.stringValue == "workspace" { shown = node["visible"]?.boolValue ?? visible }
        let children = (node["nodes"]?.arrayValue ?? []) + (node["floating_nodes"]?.arrayValue ?? [])
        let pid = node["pid"]?.intValue.flatMap { Int32(exactly: $0) }
        let appID = node["app_id"]?.stringValue ?? node["window_properties"]?["class"]?.stringValue
        if children.isEmpty, pid != nil || appID != nil, node["type"]?.stringValue != "workspace" {
            windows.append(
                DesktopWindow(
                    appID: appID,
                    pid: pid,
                    focused: node["focused"]?.boolValue ?? false,
                    minimized: !(node["visible"]?.boolValue ?? shown)
                )
            )
        }
        for child in children { collect(child, visible: shown, into: &windows) }
    }
}
