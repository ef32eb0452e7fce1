/// What a broker's `Hello` says beyond the app id (SEMANTICS I8, I11): the process it speaks for, and the app's
/// usage description when the app has no manifest.
struct BrokeredHello {
    var process: Int32
    var description: String?
}
