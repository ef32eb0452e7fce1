import Foundation
import JSON
import Testing
import Varlink

@testable import LocctlCommands

/// The small pieces the renderings are made of: durations, clock times, colour, tables.
@Suite("locctl formatting")
struct FormattingTests {
    @Test("locctl: a lingering deadline reads \"in 4.2 s\", longer ones in minutes and hours")
    func remaining() {
        #expect(TimeFormat.remaining(4.24) == "in 4.2 s")
        #expect(TimeFormat.remaining(0) == "in 0.0 s")
        #expect(TimeFormat.remaining(-3) == "in 0.0 s")
        #expect(TimeFormat.remaining(59.9) == "in 59.9 s")
        #expect(TimeFormat.remaining(59.96) == "in 1 min 0 s")
        #expect(TimeFormat.remaining(75) == "in 1 min 15 s")
        #expect(TimeFormat.remaining(7500) == "in 2 h 5 min")
        #expect(TimeFormat.remaining(.infinity) == "in 0.0 s")
        #expect(TimeFormat.ago(25) == "25.0 s ago")
    }

    @Test("locctl: uptime in the systemctl manner")
    func uptime() {
        #expect(TimeFormat.uptime(0.4) == "0s")
        #expect(TimeFormat.uptime(125) == "2min 5s")
        #expect(TimeFormat.uptime(3725.5) == "1h 2min")
    }

    @Test("locctl: Unix times as the wall clock of a zone, to the millisecond")
    func clock() throws {
        let utc = try #require(TimeZone(identifier: "UTC"))
        let plusTwo = try #require(TimeZone(secondsFromGMT: 7200))
        #expect(TimeFormat.clock(1_763_778_187.25, in: utc) == "02:23:07.250")
        #expect(TimeFormat.clock(1_763_778_187.25, in: plusTwo) == "04:23:07.250")
        #expect(TimeFormat.clock(0, in: utc) == "00:00:00.000")
        #expect(TimeFormat.clock(.nan, in: utc) == "?")
        #expect(TimeFormat.clock(1e300, in: utc) == "?")
    }

    @Test("locctl: colour only on a terminal, never with NO_COLOR set or TERM=dumb")
    func colourDecision() {
        #expect(Style.decide(isTerminal: true, environment: [:]).colors)
        #expect(!Style.decide(isTerminal: false, environment: [:]).colors)
        #expect(!Style.decide(isTerminal: true, environment: ["NO_COLOR": "1"]).colors)
        #expect(Style.decide(isTerminal: true, environment: ["NO_COLOR": ""]).colors)
        #expect(!Style.decide(isTerminal: true, environment: ["TERM": "dumb"]).colors)
        #expect(Style(colors: false).paint("on", .green) == "on")
        #expect(Style(colors: true).paint("on", .green) == "\u{1B}[32mon\u{1B}[0m")
        #expect(Style(colors: true).paint("", .green) == "")
    }

    @Test("locctl: table columns are as wide as their widest cell; the last is not padded")
    func table() {
        var table = Table(headers: ["A", "LONGER"])
        table.rows = [["xyz", "1"], ["x", "22"]]
        #expect(
            table.render(style: .plain, legend: true, footer: "2 rows.") == "A    LONGER\nxyz  1\nx    22\n\n2 rows.\n"
        )
        #expect(table.render(style: .plain, legend: false, footer: "2 rows.") == "xyz  1\nx    22\n")
    }

    @Test("locctl --json=pretty: one field a line, indented, keys sorted; empty arrays and objects stay on their line")
    func prettyJSON() {
        let value: JSONValue = .object(["b": .array([.int(1), .object([:])]), "a": .array([])])
        #expect(
            JSONOutput.text(value, style: .pretty) == """
                {
                  "a": [],
                  "b": [
                    1,
                    {}
                  ]
                }
                """
        )
        #expect(JSONOutput.text(value, style: .short) == #"{"a":[],"b":[1,{}]}"#)
    }

    @Test(
        "locctl --json: keys sorted at every depth, so the same value prints the same bytes whatever order it came in"
    )
    func jsonKeysSorted() {
        let one: JSONValue = .object(["b": .int(1), "a": .array([.object(["z": .null, "y": .bool(true)])])])
        let other: JSONValue = .object(["a": .array([.object(["y": .bool(true), "z": .null])]), "b": .int(1)])
        #expect(JSONOutput.line(one) == #"{"a":[{"y":true,"z":null}],"b":1}"#)
        #expect(JSONOutput.line(other) == JSONOutput.line(one))
    }
}
