import Foundation
import JSON
import LocationTestSupport
import Testing
import Varlink

/// SEMANTICS F1: a call's text is parsed in time linear in its size, and bounded in nesting, keys per
/// object and values in all; a refused call says which limit it passed.
@Suite("JSON limits")
struct JSONLimitTests {
    @Test("F1: an object of 110,000 keys and a repeated one parses whole, first value kept, in linear time")
    func wideObjectParsesLinearly() throws {
        let bytes = JSONSamples.wideObject(keys: 110_000, extra: #","0":1"#)
        let started = Date()
        let object = try #require(JSONValue.parse(bytes)?.objectValue)
        let elapsed = Date().timeIntervalSince(started)
        #expect(object.fields.count == 110_000)
        #expect(object.fields.first?.1 == .int(0), "a repeated key keeps its first value")
        // A bound, not a measurement: the search through the keys so far took 20 s here; a linear parse of
        // a megabyte takes a small fraction of a second even unoptimised.
        #expect(elapsed < 5, "parsing 110,000 keys took \(elapsed) s")
    }

    @Test("F1: a call's object past 256 keys is refused while it is read, naming the limit")
    func keysPerObject() {
        #expect(
            JSONValue.parse(JSONSamples.wideObject(keys: 257), limits: .call) == .failure(.tooManyKeys(maximum: 256))
        )
        #expect(
            (try? JSONValue.parse(JSONSamples.wideObject(keys: 256), limits: .call).get())?.objectValue?.fields.count
                == 256
        )
        // A repeated key is not a new one.
        let repeated = JSONSamples.wideObject(keys: 256, extra: #","0":1,"1":2"#)
        #expect((try? JSONValue.parse(repeated, limits: .call).get()) != nil)
    }

    @Test("F1: a call nested past 32 levels is refused; a million levels refuse without exhausting the stack")
    func depth() {
        func nested(_ depth: Int) -> [UInt8] {
            Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        }
        #expect((try? JSONValue.parse(nested(32), limits: .call).get()) != nil)
        #expect(JSONValue.parse(nested(33), limits: .call) == .failure(.tooDeep(maximum: 32)))
        #expect(JSONValue.parse(nested(1_000_000), limits: .call) == .failure(.tooDeep(maximum: 32)))
        #expect(JSONValue.parse(nested(1_000_000)) == nil)
        let objects = Array((String(repeating: #"{"a":"#, count: 1_000_000) + "0").utf8)
        #expect(JSONValue.parse(objects, limits: .document) == .failure(.tooDeep(maximum: 512)))
    }

    @Test("F1: a call of more than 4096 values in all is refused, however they are spread")
    func values() {
        let flat = Array(("[" + Array(repeating: "0", count: 5000).joined(separator: ",") + "]").utf8)
        #expect(JSONValue.parse(flat, limits: .call) == .failure(.tooManyValues(maximum: 4096)))
        let spread = Array(
            ("["
                + Array(repeating: "[" + Array(repeating: "0", count: 100).joined(separator: ",") + "]", count: 50)
                .joined(separator: ",") + "]").utf8
        )
        #expect(JSONValue.parse(spread, limits: .call) == .failure(.tooManyValues(maximum: 4096)))
        #expect(JSONValue.parse(flat) != nil, "replies are not bounded in values")
    }

    @Test("F1: a call past a limit is answered InvalidParameter with the limit and what to do")
    func callRefusal() throws {
        var frame = Array(#"{"method":"io.locd.App.Hello","parameters":"#.utf8)
        frame += JSONSamples.wideObject(keys: 110_000)
        frame += Array("}".utf8)
        guard case .failure(let error) = VarlinkCall.decode(frame) else {
            Issue.record("a call of 110,000 parameters was accepted")
            return
        }
        #expect(error.name == "org.varlink.service.InvalidParameter")
        #expect(error.parameters["parameter"] == .string("parameters"))
        let message = try #require(error.parameters["message"]?.stringValue)
        #expect(message.contains("256") && message.contains("send fewer"), "\(message)")
    }

    @Test("F3: a call with both more and oneway is refused, naming oneway")
    func moreAndOneway() throws {
        let frame = Array(#"{"method":"io.locd.App.WatchAuthorization","more":true,"oneway":true}"#.utf8)
        guard case .failure(let error) = VarlinkCall.decode(frame) else {
            Issue.record("more with oneway was accepted")
            return
        }
        #expect(error.parameters["parameter"] == .string("oneway"))
        #expect(error.parameters["message"]?.stringValue?.contains("drop \"oneway\"") == true)
    }
}
