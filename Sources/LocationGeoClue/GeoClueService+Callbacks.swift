import CSdBus

#if canImport(Glibc)
import Glibc
#endif

/// The C callbacks sd-bus calls: each finds the service from its userdata and hands the message to it.
extension GeoClueService {
    static func with(
        _ userdata: UnsafeMutableRawPointer?,
        _ message: OpaquePointer?,
        _ body: (GeoClueService, BusMessage) -> Int32
    ) -> Int32 {
        guard let userdata, let message else { return -EINVAL }
        return body(Unmanaged<GeoClueService>.fromOpaque(userdata).takeUnretainedValue(), BusMessage(raw: message))
    }

    /// A Client method on the client at the message's path (the filter has checked its owner).
    static func withClient(
        _ userdata: UnsafeMutableRawPointer?,
        _ message: OpaquePointer?,
        _ body: (GeoClueService, BusMessage, GeoClueClient) -> Int32
    ) -> Int32 {
        with(userdata, message) { service, message in
            guard let path = message.path, let client = service.clients[path] else { return -ENOENT }
            return body(service, message, client)
        }
    }

    static let getClientCallback: sd_bus_message_handler_t = { message, userdata, _ in
        with(userdata, message) { $0.getClient($1, reuse: true) }
    }
    static let createClientCallback: sd_bus_message_handler_t = { message, userdata, _ in
        with(userdata, message) { $0.getClient($1, reuse: false) }
    }
    static let deleteClientCallback: sd_bus_message_handler_t = { message, userdata, _ in
        with(userdata, message) { $0.deleteClient($1) }
    }
    static let addAgentCallback: sd_bus_message_handler_t = { message, userdata, _ in
        with(userdata, message) { $0.addAgent($1) }
    }
    static let startCallback: sd_bus_message_handler_t = { message, userdata, _ in
        withClient(userdata, message) { $0.start($1, $2) }
    }
    static let stopCallback: sd_bus_message_handler_t = { message, userdata, _ in
        withClient(userdata, message) { $0.stop($1, $2) }
    }
    static let filterCallback: sd_bus_message_handler_t = { message, userdata, _ in
        with(userdata, message) { $0.filter($1) }
    }
    static let nameOwnerChangedCallback: sd_bus_message_handler_t = { message, userdata, _ in
        with(userdata, message) { service, message in
            // NameOwnerChanged(name, old, new): a unique name whose new owner is empty has left the bus, one whose
            // old owner is empty has just connected (I14).
            guard let name = message.readString(), let old = message.readString(), let new = message.readString(),
                name.hasPrefix(":")
            else { return 0 }
            if new.isEmpty {
                service.peerLeft(name)
            } else if old.isEmpty {
                service.peerAppeared(name)
            }
            return 0
        }
    }

    static let managerGetter: sd_bus_property_get_t = { _, _, _, property, reply, userdata, _ in
        with(userdata, reply) { service, reply in
            service.getManagerProperty(property.map { String(cString: $0) } ?? "", into: reply)
        }
    }
    static let clientGetter: sd_bus_property_get_t = { _, path, _, property, reply, userdata, _ in
        with(userdata, reply) { service, reply in
            service.getClientProperty(
                property.map { String(cString: $0) } ?? "",
                at: path.map { String(cString: $0) } ?? "",
                into: reply
            )
        }
    }
    static let clientSetter: sd_bus_property_set_t = { _, path, _, property, value, userdata, error in
        with(userdata, value) { service, value in
            let result = service.setClientProperty(
                property.map { String(cString: $0) } ?? "",
                at: path.map { String(cString: $0) } ?? "",
                from: value
            )
            switch result {
            case .success: return 0
            case .failure(let failure): return failure.set(error)
            }
        }
    }
    static let locationGetter: sd_bus_property_get_t = { _, path, _, property, reply, userdata, _ in
        with(userdata, reply) { service, reply in
            service.getLocationProperty(
                property.map { String(cString: $0) } ?? "",
                at: path.map { String(cString: $0) } ?? "",
                into: reply
            )
        }
    }
}

/// The callbacks of calls to GeoClue agents and of their `PropertiesChanged`.
extension GeoClueService {
    static let agentReplyCallback: sd_bus_message_handler_t = { message, userdata, _ in
        with(userdata, message) { service, reply in
            service.agentReplied(reply)
            return 0
        }
    }
    static let agentChangedCallback: sd_bus_message_handler_t = { message, userdata, _ in
        with(userdata, message) { service, signal in
            // PropertiesChanged(interface, changed a{sv}, invalidated as), matched on the agent's interface.
            guard let sender = signal.sender, let agent = service.agents[sender], agent.maxAccuracy != nil,
                signal.readString() != nil, let level = signal.readUInt32Properties()?["MaxAccuracyLevel"]
            else { return 0 }
            service.setMaxAccuracy(of: agent, level)
            return 0
        }
    }
}
