@testable import LocationConfiguration

/// The one-line message that loading `text` as `file` fails with, or `nil` when it loads.
func configurationFailure(_ text: String, file: String = "/etc/locd/locd.toml") -> String? {
    do {
        _ = try DaemonConfiguration.parse(text: text, file: file)
        return nil
    } catch {
        return error.description
    }
}
