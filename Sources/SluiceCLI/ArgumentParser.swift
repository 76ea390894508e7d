/// A small parser for `command [--option value | --option=value | --flag] positional…`.
///
/// Options are declared up front so that an unknown or misspelled option is an error naming
/// it, never silently treated as a positional argument.
struct ArgumentParser {
  var valueOptions: Set<String>
  var flags: Set<String>

  struct Parsed {
    var values: [String: String] = [:]
    /// Every value of each value option, in order: a repeatable option's (`--metrics-label`).
    var lists: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
  }

  func parse(_ arguments: [String]) throws(UsageError) -> Parsed {
    var parsed = Parsed()
    var index = 0
    var onlyPositionals = false
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if onlyPositionals || !argument.hasPrefix("--") || argument == "-" {
        parsed.positionals.append(argument)
        continue
      }
      if argument == "--" {
        onlyPositionals = true
        continue
      }
      var name = String(argument.dropFirst(2))
      var inlineValue: String?
      if let equals = name.firstIndex(of: "=") {
        inlineValue = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      if flags.contains(name) {
        guard inlineValue == nil else {
          throw UsageError("--\(name) takes no value")
        }
        parsed.flags.insert(name)
      } else if valueOptions.contains(name) {
        if let inlineValue {
          parsed.values[name] = inlineValue
        } else {
          guard index < arguments.count else {
            throw UsageError("--\(name) needs a value")
          }
          parsed.values[name] = arguments[index]
          index += 1
        }
        parsed.lists[name, default: []].append(parsed.values[name] ?? "")
      } else {
        throw UsageError("unknown option --\(name)")
      }
    }
    return parsed
  }
}
