#if canImport(Glibc)
import Glibc
#endif

/// The descriptors a peer passed (`SCM_RIGHTS`) with the bytes of one message, owned here and closed when this
/// is released: a descriptor nobody takes can never stay open in the server.
///
/// At most ``maximum`` are kept; the others were closed as they came, and ``dropped`` counts them (with those
/// the kernel closed because they did not fit), so a reader can refuse a message that came with more than it
/// expects instead of taking the first ones as if they were all.
public final class PassedDescriptors {
    /// The most descriptors kept for one message.
    public static let maximum = 4

    /// The descriptors kept, in the order they came.
    public private(set) var descriptors: [Int32] = []
    /// How many more came and were closed at once.
    public private(set) var dropped = 0

    init() {}

    deinit {
        for descriptor in descriptors { close(descriptor) }
    }

    /// Whether nothing came.
    public var isEmpty: Bool { descriptors.isEmpty && dropped == 0 }

    /// Takes `descriptor`: kept if there is room, else closed and counted.
    func take(_ descriptor: Int32) {
        guard descriptor >= 0 else { return }
        if descriptors.count < Self.maximum {
            descriptors.append(descriptor)
        } else {
            close(descriptor)
            dropped += 1
        }
    }

    /// Counts descriptors that came but were closed before they reached here.
    func lost(_ count: Int) {
        dropped += count
    }

    /// Takes everything `other` holds; `other` is left empty.
    func absorb(_ other: PassedDescriptors) {
        for descriptor in other.descriptors { take(descriptor) }
        other.descriptors = []
        dropped += other.dropped
        other.dropped = 0
    }
}
