import ArgumentParser

/// `--json` and `--no-legend`, for the commands that print lists.
struct OutputOptions: ParsableArguments {
    @Flag(
        name: .long,
        help: "Print the Admin reply's value as JSON (one line), with io.locd.Admin's stable field names."
    )
    var json = false

    @Flag(name: .long, help: "Leave out the table's header and footer (for scripts).")
    var noLegend = false
}
