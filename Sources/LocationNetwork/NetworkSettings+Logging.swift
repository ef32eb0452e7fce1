import Foundation

extension NetworkSettings {
    /// The URL as logged: without its query, which may hold an API key.
    var loggedURL: String {
        guard var components = URLComponents(string: url) else { return "the service" }
        components.query = nil
        components.fragment = nil
        return components.string ?? "the service"
    }
}
