import Foundation

/// The Python that has the `varlink` package, the independent client of the interoperability tests.
package enum PythonVarlink {
    /// `.venv/bin/python3` of the checkout, where `.ci/install-deps --tests` installs the package (Debian's own
    /// python3 is externally managed); else the `python3` on the PATH, for a machine that has it there.
    package static var interpreter: String {
        let venv = Repository.root() + "/.venv/bin/python3"
        if FileManager.default.isExecutableFile(atPath: venv) { return venv }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":")
        where FileManager.default.isExecutableFile(atPath: "\(directory)/python3") {
            return "\(directory)/python3"
        }
        return "/usr/bin/python3"
    }

    /// What to do when the package is missing, for a failing test's message.
    package static let installHint = "the Python varlink package is missing: run ./.ci/install-deps --tests"
}
