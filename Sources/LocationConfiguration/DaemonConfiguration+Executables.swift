import LocationCore

extension DaemonConfiguration {
    /// I13: resolves the `executable` of every `[[broker]]` with realpath(3), so that a broker run through a link is
    /// the process running its target, which is what `/proc/PID/exe` shows.
    /// - Parameter places: for each broker, where its `executable` is written (an issue with no message yet).
    /// - Throws: for the first executable that resolves nowhere, an issue naming file, line and key and what to do:
    ///   a broker locd is told to trust and cannot recognise would only ever be refused.
    mutating func resolveBrokerExecutables(places: [ConfigurationIssue]) throws(ConfigurationIssue) {
        for index in brokers.indices {
            guard let executable = brokers[index].executable else { continue }
            var issue =
                index < places.count
                ? places[index]
                : ConfigurationIssue(file: "", line: nil, key: "broker[\(index + 1)].executable", message: "")
            let advice =
                "install the broker, or write the path of its program (or of a link to it); delete a drop-in that a "
                + "removed broker left behind, or override it with broker = []"
            switch ExecutableResolution.resolve(executable) {
            case .resolved(let target):
                brokers[index].resolvedExecutable = target
            case .missing:
                issue.message = "\(TOMLDocument.quoted(executable)) does not exist: \(advice)"
                throw issue
            case .unusable(let why):
                issue.message = "\(TOMLDocument.quoted(executable)) \(why), so no broker can run it: \(advice)"
                throw issue
            }
        }
    }
}
