/// One option of a command line: its spellings, the name of its value, its help.
package struct OptionSpec: Equatable, Sendable {
    /// The long spelling, as messages name the option: `--store`.
    package let long: String
    /// The short spelling, if any: `-S`.
    package let short: String?
    /// The name of the value (`PATH`), or `nil` for a flag.
    package let valueName: String?
    /// One line of help.
    package let help: String
    /// What completes the value.
    package let values: CompletionValues

    package init(_ long: String, short: String? = nil, value valueName: String? = nil, values: CompletionValues = .none, _ help: String) {
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
        self.values = valueName == nil ? .none : values
    }

    package static func == (left: OptionSpec, right: OptionSpec) -> Bool { left.long == right.long }

    package var takesValue: Bool { valueName != nil }

    /// Every spelling, the short one first: `-S`, `--stdin`.
    package var spellings: [String] { (short.map { [$0] } ?? []) + [long] }

    /// `-S, --stdin` or `--store PATH`: how help and the man page show it.
    package var label: String {
        spellings.joined(separator: ", ") + (valueName.map { " " + $0 } ?? "")
    }

    /// `[--reason TEXT]`: how a synopsis shows it.
    package var synopsis: String {
        "[" + long + (valueName.map { " " + $0 } ?? "") + "]"
    }
}
