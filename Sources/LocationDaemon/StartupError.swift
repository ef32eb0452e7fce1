/// The daemon's start-up error: one line for the person, and the exit code that goes with it.
package struct StartupError: Error, CustomStringConvertible {
    package var description: String
    package var code: ExitStatus
}
