/// What the ``IdentificationHandler`` hands to the ``VarlinkConnectionHandler`` behind it in the pipeline.
///
/// Both run on the channel's event loop, and a frame passes from one to the other within one synchronous
/// `fireChannelRead`, so the frame's sender set here before that call is the sender of that frame.
final class IdentificationState {
    /// The peer's connect-time credentials, read when the connection opened.
    var credentials: PeerCredentials?
    /// The writer of the frame being handed on now; `nil` once identification is over.
    var frameSender: FrameSender?
    /// The descriptors passed with that frame; the connection keeps them only if the frame is its identifying
    /// call.
    var frameDescriptors: PassedDescriptors?
    /// Set by the connection handler when that frame was the connection's identifying call (its first call
    /// that is not to `org.varlink.service`): identification is then over.
    var identified = false
}
