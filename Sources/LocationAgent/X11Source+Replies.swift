import CXcb

#if canImport(Glibc)
import Glibc
#endif

/// The server's answers read, and the questions asked once at the start, whose answers the source waits for.
extension X11Source {
    /// The 32-bit values of a `GetProperty` answer (windows, atoms, cardinals); none when it has another format.
    static func cardinals(_ reply: UnsafeMutableRawPointer) -> [UInt32] {
        let property = reply.assumingMemoryBound(to: xcb_get_property_reply_t.self)
        guard property.pointee.format == 32, let value = xcb_get_property_value(property) else { return [] }
        let count = Int(xcb_get_property_value_length(property)) / 4
        return Array(UnsafeBufferPointer(start: value.assumingMemoryBound(to: UInt32.self), count: count))
    }

    /// The bytes of a `GetProperty` answer of 8-bit format (a string list such as `WM_CLASS`).
    static func bytes(_ reply: UnsafeMutableRawPointer) -> [UInt8] {
        let property = reply.assumingMemoryBound(to: xcb_get_property_reply_t.self)
        guard property.pointee.format == 8, let value = xcb_get_property_value(property) else { return [] }
        let count = Int(xcb_get_property_value_length(property))
        return Array(UnsafeBufferPointer(start: value.assumingMemoryBound(to: UInt8.self), count: count))
    }

    /// The pid of an X-Resource `QueryClientIds` answer: the server's own record of the client's process (from its
    /// socket's credentials), `nil` for a client it has none for (one over the network).
    static func localPid(_ reply: UnsafeMutableRawPointer) -> Int32? {
        let ids = reply.assumingMemoryBound(to: xcb_res_query_client_ids_reply_t.self)
        var iterator = xcb_res_query_client_ids_ids_iterator(ids)
        while iterator.rem > 0, let id = iterator.data {
            if id.pointee.spec.mask & XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID.rawValue != 0,
                xcb_res_client_id_value_value_length(id) >= 1, let value = xcb_res_client_id_value_value(id)
            {
                let pid = Int32(bitPattern: value.pointee)
                return pid > 0 ? pid : nil
            }
            xcb_res_client_id_value_next(&iterator)
        }
        return nil
    }

    /// The atoms of `names`, in their order; fewer when the server did not answer.
    static func intern(_ connection: OpaquePointer, _ names: [String]) -> [xcb_atom_t] {
        let cookies = names.map { name in xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name) }
        var atoms: [xcb_atom_t] = []
        for cookie in cookies {
            guard let reply = xcb_intern_atom_reply(connection, cookie, nil) else { break }
            atoms.append(reply.pointee.atom)
            free(reply)
        }
        return atoms
    }

    /// Whether the server has X-Resource 1.2 or later, whose `QueryClientIds` gives a client's pid.
    static func hasResourcePids(_ connection: OpaquePointer) -> Bool {
        guard let extensionData = locd_xcb_res_extension(connection), extensionData.pointee.present != 0,
            let version = xcb_res_query_version_reply(connection, xcb_res_query_version(connection, 1, 2), nil)
        else { return false }
        defer { free(version) }
        return (version.pointee.server_major, version.pointee.server_minor) >= (1, 2)
    }

    /// Whether the root window's `_NET_SUPPORTED` names `atom`: an EWMH window manager runs and says it.
    static func supports(
        _ connection: OpaquePointer,
        _ root: xcb_window_t,
        _ supported: xcb_atom_t,
        _ atom: xcb_atom_t
    )
        -> Bool
    {
        let cookie = xcb_get_property(connection, 0, root, supported, XCB_ATOM_ATOM.rawValue, 0, 4096)
        guard let reply = xcb_get_property_reply(connection, cookie, nil) else { return false }
        defer { free(reply) }
        return cardinals(UnsafeMutableRawPointer(reply)).contains(atom)
    }
}
