import JSON
import LocationProtocol
import Testing
import Varlink

/// The vocabulary's names are the IDL's, every one of them: a method or error added to an interface text and not
/// here (or the other way round) fails.
@Suite("Vocabulary")
struct VocabularyTests {
    /// The names an IDL text declares with `keyword`, qualified by its interface.
    static func declared(_ keyword: String, in idl: String) throws -> Set<String> {
        let interface = try #require(idl.firstMatch(of: #/^interface ([\w.]+)$/#.anchorsMatchLineEndings())).output.1
        let pattern = try Regex("^\(keyword) (\\w+) ?\\(").anchorsMatchLineEndings()
        return Set(idl.matches(of: pattern).compactMap { $0.output[1].substring.map { "\(interface).\($0)" } })
    }

    static let texts = [
        LocationInterfaces.app, LocationInterfaces.admin, LocationInterfaces.networkLocation,
        VarlinkServer.serviceDescription,
    ]

    @Test("PROTOCOL: the method names are exactly the methods of the four interfaces' IDL")
    func methods() throws {
        let declared = try Self.texts.reduce(into: Set<String>()) { $0.formUnion(try Self.declared("method", in: $1)) }
        let named =
            AppMethod.allCases.map(\.name) + AdminMethod.allCases.map(\.name)
            + NetworkLocationMethod.allCases.map(\.name) + ServiceMethod.allCases.map(\.name)
        #expect(Set(named) == declared)
        #expect(named.count == declared.count)
        #expect(AppMethod.hello.member == "Hello")
        #expect(AdminMethod.allCases.allSatisfy { $0.name.hasPrefix(AdminMethod.interface + ".") })
    }

    @Test("PROTOCOL: the error names are exactly the errors of the four interfaces' IDL")
    func errors() throws {
        let declared = try Self.texts.reduce(into: Set<String>()) { $0.formUnion(try Self.declared("error", in: $1)) }
        #expect(Set(WireErrorName.allCases.map(\.name)) == declared)
    }

    /// One sample of each error with the parameters its IDL declares.
    static let samples: [WireError] = [
        .helloRequired, .appUnknown(appId: "com.ex.a"), .noSuchSession(id: "s1-2"), .sessionInvalidated(id: "s1-3"),
        .usageDescriptionMissing(key: "NSLocationWhenInUseUsageDescription"), .unknownPurposeKey(purposeKey: "Nav"),
        .limitExceeded(limit: "max-sessions-per-app", maximum: 64), .backgroundActivityUnavailable(reason: "why"),
        .noSuchApp(appId: "com.ex.b"), .noSuchPrompt(id: "p1-1"), .invalidAnswer(id: "p1-1", answer: "allow"),
        .invalidSettings(field: "url", reason: "not https"), .networkLimitExceeded(limit: "watches", maximum: 8),
        .methodNotFound(method: "io.locd.App.Teleport"), .interfaceNotFound(interface: "io.locd.Nope"),
        .invalidParameter(parameter: "appId"), .expectedMore, .permissionDenied,
    ]

    /// The parameter names the IDL declares for the error `name` (qualified), in order.
    static func declaredParameters(of name: String) throws -> [String] {
        let dot = try #require(name.lastIndex(of: "."))
        let text = try #require(texts.first { $0.contains("interface \(name[..<dot])\n") })
        let pattern = try Regex("^error \(name[name.index(after: dot)...]) ?\\(([^)]*)\\)").anchorsMatchLineEndings()
        let fields = try #require(text.firstMatch(of: pattern)?.output[1].substring)
        return fields.split(separator: ",").compactMap { $0.split(separator: ":").first }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    @Test("PROTOCOL: every error's parameters are its IDL's, and read back as the same error", arguments: samples)
    func errorParameters(error: WireError) throws {
        let parameters = error.parameters(message: "what to do")
        var expected = try Self.declaredParameters(of: error.name.name)
        // io.locd.NetworkLocation.LimitExceeded declares the message every reply carries.
        if expected.last != "message" { expected.append("message") }
        #expect(parameters.keys == expected)
        #expect(WireError(name: error.name.name, parameters: parameters) == error)
        if parameters.keys.count > 1 {
            #expect(
                WireError(name: error.name.name, parameters: JSONObject(Array(parameters.fields.dropFirst()))) == nil
            )
        }
    }

    @Test("PROTOCOL: every error is sampled once")
    func samplesCoverEveryName() {
        #expect(Set(Self.samples.map(\.name)) == Set(WireErrorName.allCases))
    }
}
