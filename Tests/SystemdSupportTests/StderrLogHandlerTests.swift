import Logging
import SystemdSupport
import Testing

extension ProcessWideTests {
    @Suite("logging: plain lines on stderr outside systemd")
    struct StderrLogHandlerTests {
        @Test("logging: a stderr line is LEVEL, the message, then key=value sorted by key")
        func line() {
            let line = StderrLogHandler.line(
                level: .warning,
                message: "prompt timed out",
                metadata: ["locd.session": "4f1c", "locd.app": "com.example.maps"]
            )
            #expect(line == "WARNING prompt timed out locd.app=com.example.maps locd.session=4f1c")
        }

        @Test("logging: values with spaces, quotes or = are quoted, and line breaks stay on one line")
        func quoting() {
            let line = StderrLogHandler.line(
                level: .error,
                message: "bad config\nat line 3",
                metadata: ["path": "/etc/locd/my file.toml", "empty": "", "expr": "a=b", "quote": "say \"hi\""]
            )
            let expected =
                #"ERROR bad config\nat line 3 empty="" expr="a=b" path="/etc/locd/my file.toml" quote="say \"hi\"""#
            #expect(line == expected)
        }

        @Test(
            """
            I16: an app's escape sequences and bidi controls in a message or a value are escaped, on stderr and in the \
            journal, which keeps its own line breaks
            """
        )
        func hostileText() {
            let app = "com.ex.x\u{1B}[2J\u{1B}]0;owned\u{07}\u{202E}"
            let line = StderrLogHandler.line(
                level: .info,
                message: "hello of \(app)\nnext",
                metadata: ["locd.app": .string(app)]
            )
            let shown = #"com.ex.x\u{1b}[2J\u{1b}]0;owned\u{7}\u{202e}"#
            #expect(line == #"INFO hello of "# + shown + #"\nnext locd.app="# + shown)
            let entry = JournalEntry(
                level: .info,
                message: "hello of \(app)\nnext",
                metadata: ["locd.app": .string(app)],
                file: "F.swift",
                function: "f()",
                line: 1
            )
            #expect(entry.fields.first == "MESSAGE=hello of " + shown + "\nnext")
            #expect(entry.fields.contains("LOCD_APP=" + shown), "\(entry.fields)")
        }

        @Test("logging: the backend is the journal under systemd and stderr elsewhere")
        func backendChoice() {
            #expect(Systemd.makeLogHandler(label: "locd", underSystemd: true) is JournalLogHandler)
            #expect(Systemd.makeLogHandler(label: "locd", underSystemd: false) is StderrLogHandler)
        }

        @Test("logging: running under systemd means INVOCATION_ID or JOURNAL_STREAM is set")
        func underSystemd() {
            #expect(Systemd.runningUnderSystemd(environment: ["INVOCATION_ID": "0b1e8c6f0d3a4e62a1c1d0b7e5f3a9c2"]))
            #expect(Systemd.runningUnderSystemd(environment: ["JOURNAL_STREAM": "8:12345"]))
            #expect(!Systemd.runningUnderSystemd(environment: ["HOME": "/root", "NOTIFY_SOCKET": "/run/x"]))
            #expect(!Systemd.runningUnderSystemd(environment: ["INVOCATION_ID": ""]))
        }
    }
}
