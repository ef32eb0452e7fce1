import ArgumentParser
import Foundation
import JSON
import LocationProtocol
import Varlink

/// `locctl status`: the daemon at a glance, and the apps using location now (the status-bar list).
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the daemon's state, counts, and the apps using location.",
        discussion: """
            Prints the version, uptime, the location-services switch, the provider and its last fix, \
            the store's health, the counts of apps, clients, agents, sessions (and how many linger) \
            and pending prompts, and the apps using location now and in the background (the \
            status-bar and Control Centre list). With several providers, each one's state, its \
            newest fix and whether it is fresh, and which one supplied the last fix.

            An administrator sees all of this for the machine. Anyone else (SEMANTICS H4) sees the \
            machine's switch and their own ("on (off for you)" after locctl services off), their own \
            apps using location, the machine's counts only in aggregate, and the providers without \
            their source or the place of their last fix.

            With --json, prints the DaemonStatus object of io.locd.Admin.Status (fields: version, \
            pid, uptimeSeconds, locationServicesEnabled, provider{name, running, hasFix, lastFix}, \
            storeHealthy, apps, clients, sessions, lingeringSessions, pendingPrompts, agents, \
            appsUsingLocation, appsUsingLocationInBackground, providers[{name, kind, running, \
            hasFix, lastFix, state, source, lastError, …}], lastFixFrom, administrator, \
            locationServicesEnabledForUser for a caller who does not administer, and desktops[{desktop, \
            user, reading, failure, locked}]: the desktops that say what is in front, SEMANTICS L11).

            Example: locctl status
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print the Admin.Status reply as JSON, with its stable field names.")
    var json = false

    /// Accepted as every command accepts it, as systemctl's options are: this command prints no table.
    @Flag(name: .long, help: "Accepted for scripts that pass it to every command; there is no table here.")
    var noLegend = false

    func run() throws {
        let reply = try connection.call(AdminMethod.status.name)
        let now = Date().timeIntervalSince1970
        guard let text = Self.output(reply, json: json, now: now, style: .standardOutput) else {
            printError("locd's Status reply has no status; is the socket a locd of this version?")
            throw ExitCode.failure
        }
        print(text, terminator: "")
    }

    /// What the command prints for an `Admin.Status` reply; `nil` when the reply has no status.
    static func output(
        _ reply: JSONObject,
        json: Bool,
        now: Double,
        style: Style = .plain,
        timeZone: TimeZone = .current
    ) -> String? {
        guard let status = reply["status"] else { return nil }
        return json ? JSONOutput.line(status) + "\n" : render(status, now: now, style: style, timeZone: timeZone)
    }

    /// Provider fields the human rendering names itself; any others are listed as they come.
    static let knownProviderFields: Set<String> = [
        "name", "running", "hasFix", "lastFix", "state", "source", "lastLatitude", "lastLongitude", "lastError", "kind",
        "lastAccuracy",
    ]

    /// The human rendering, separate so it can be tested on a fixed reply.
    /// - Parameters:
    ///   - now: the current Unix time, to say how long ago the last fix was.
    ///   - timeZone: the zone the last fix's wall-clock time is shown in.
    static func render(
        _ status: JSONValue,
        now: Double,
        style: Style = .plain,
        timeZone: TimeZone = .current
    )
        -> String
    {
        let status = status.shownAsText  // I16
        func int(_ key: String) -> Int64 { status[key]?.intValue ?? 0 }
        func list(_ key: String) -> String {
            let names = status[key]?.arrayValue?.compactMap(\.stringValue) ?? []
            return names.isEmpty ? "none" : names.joined(separator: ", ")
        }
        func painted(_ text: String) -> String { style.paint(text, .of(text)) }
        let provider = status["provider"]
        // `gpsd (running, retrying, has a fix) from 127.0.0.1:2947`: the provider's own state only where it is
        // not the one its demand implies.
        var providerParts = [painted(provider?["running"]?.boolValue == true ? "running" : "idle")]
        if let state = provider?["state"]?.stringValue, !["running", "stopped"].contains(state) {
            providerParts.append(style.paint(state, .of(state)))
        }
        if provider?["hasFix"]?.boolValue == true { providerParts.append("has a fix") }
        let source = provider?["source"]?.stringValue.map { " from \($0)" } ?? ""
        let uptime = TimeFormat.uptime(status["uptimeSeconds"]?.doubleValue ?? 0)
        let store =
            status["storeHealthy"]?.boolValue == true
            ? painted("healthy") : style.paint("FAILING, serving from memory and retrying", .red)
        let administrator = status["administrator"]?.boolValue ?? true
        var fields = Fields()
        fields.add("Location services", services(status, style: style))
        fields.add(
            "Provider",
            "\(provider?["name"]?.stringValue ?? "?") (\(providerParts.joined(separator: ", ")))\(source)"
        )
        if let lastFix = provider?["lastFix"]?.doubleValue {
            let point = [provider?["lastLatitude"], provider?["lastLongitude"]].compactMap { $0?.doubleValue }
            // Six places of a degree: about 10 cm.
            let place = point.count == 2 ? String(format: "%.6f, %.6f, ", point[0], point[1]) : ""
            fields.add(
                "Last fix",
                "\(place)\(TimeFormat.clock(lastFix, in: timeZone)) (\(TimeFormat.ago(now - lastFix)))"
            )
        }
        if let problem = provider?["lastError"]?.stringValue {
            fields.add("Provider problem", style.paint(problem, .red))
        }
        let extras = (provider?.objectValue?.fields.filter { !knownProviderFields.contains($0.0) } ?? [])
            .sorted { $0.0 < $1.0 }
        if !extras.isEmpty {
            fields.add("Provider details", extras.map { "\($0.0) \(plainText($0.1))" }.joined(separator: ", "))
        }
        addProviders(status, to: &fields, now: now, style: style, timeZone: timeZone)
        fields.add("Store", store)
        fields.add("Apps", "\(int("apps"))    clients \(int("clients"))    agents \(int("agents"))")
        fields.add("Sessions", "\(int("sessions")) (\(int("lingeringSessions")) lingering)")
        fields.add("Pending prompts", "\(int("pendingPrompts"))")
        // H4: an ordinary user's list is of their own apps.
        fields.add(administrator ? "Using location" : "Your apps using location", list("appsUsingLocation"))
        fields.add("In the background", list("appsUsingLocationInBackground"))
        for desktop in status["desktops"]?.arrayValue ?? [] { fields.add("Desktop", Self.desktop(desktop, style)) }
        let pid = int("pid")
        return "locd \(status["version"]?.stringValue ?? "?") (pid \(pid)), up \(uptime)\n" + fields.render()
    }

    /// A desktop source (L13): which desktop, whose, and whether it reads it or why not.
    static func desktop(_ desktop: JSONValue, _ style: Style) -> String {
        let name = desktop["desktop"]?.stringValue ?? "?"
        let user = desktop["user"]?.intValue.map { Users.name(of: UInt32(clamping: $0)) ?? "uid \($0)" } ?? "?"
        guard desktop["reading"]?.boolValue == true else {
            let why = desktop["failure"]?.stringValue ?? "no reason given"
            return "\(name) of \(user): " + style.paint("cannot be read: \(why)", .red) + "; apps' own word decides"
        }
        let locked = desktop["locked"]?.boolValue == true ? ", locked" : ""
        return "\(name) of \(user) decides what is in front\(locked)"
    }

    /// The machine's switch (A4) and, for a caller who does not administer, their own (H6): "on", "off", "on (off
    /// for you)", "off (for the machine)".
    static func services(_ status: JSONValue, style: Style = .plain) -> String {
        let machine = status["locationServicesEnabled"]?.boolValue == true
        let word = machine ? "on" : "off"
        let text = style.paint(word, .of(word))
        switch (machine, status["locationServicesEnabledForUser"]?.boolValue) {
        case (_, nil), (true, true?): return text
        case (true, false?): return text + " (" + style.paint("off for you", .red) + ")"
        case (false, true?): return text + " (for the machine)"
        case (false, false?): return text + " (for the machine, and for you)"
        }
    }

    /// With several providers (U16): one line for each, its state, its newest fix and whether it is fresh, and
    /// which one supplied the last fix.
    static func addProviders(
        _ status: JSONValue,
        to fields: inout Fields,
        now: Double,
        style: Style,
        timeZone: TimeZone
    ) {
        guard let providers = status["providers"]?.arrayValue, providers.count > 1 else { return }
        let supplier = status["lastFixFrom"]?.stringValue
        for provider in providers {
            let name = provider["name"]?.stringValue ?? "?"
            let state = provider["state"]?.stringValue ?? (provider["running"]?.boolValue == true ? "running" : "idle")
            var parts = [style.paint(state, .of(state))]
            if let lastFix = provider["lastFix"]?.doubleValue {
                let fresh = provider["hasFix"]?.boolValue == true ? "fresh fix" : "no fresh fix, last"
                let accuracy = provider["lastAccuracy"]?.doubleValue.map { String(format: " ±%.0f m", $0) } ?? ""
                parts.append(
                    "\(fresh)\(accuracy) at \(TimeFormat.clock(lastFix, in: timeZone)) (\(TimeFormat.ago(now - lastFix)))"
                )
            } else {
                parts.append("no fix")
            }
            if name == supplier { parts.append(style.paint("supplied the last fix", .green)) }
            if let source = provider["source"]?.stringValue { parts.append("from \(source)") }
            if let problem = provider["lastError"]?.stringValue { parts.append(style.paint(problem, .red)) }
            fields.add("Provider \(name)", parts.joined(separator: ", "))
        }
    }

    /// A JSON value as a person reads it: strings bare, everything else as JSON.
    static func plainText(_ value: JSONValue) -> String {
        value.stringValue ?? value.serialized
    }
}
