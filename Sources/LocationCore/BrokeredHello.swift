/// What a broker's `Hello` says beyond the app id (SEMANTICS I8, I11): the process it speaks for, and the app's
/// usage description when the app has no manifest.
struct BrokeredHello {
    var process: Int32
    var description: String?
    /// The real uid of `process`, which owns the app if this `Hello` makes it (F20).
    var uid: UInt32?
}
