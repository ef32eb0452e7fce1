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
