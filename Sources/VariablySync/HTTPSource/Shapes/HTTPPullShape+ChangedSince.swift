import Foundation
import VariablyCodable

// MARK: - The changed-since request

extension HTTPPullShape.ChangedSince {
    /// The records' field that holds the value.
    var field: String {
        switch self {
        case .updatedSince(_, let field, _), .filter(_, _, _, let field, _): field
        }
    }

    /// How far before the last pull's boundary a sync asks from.
    var lookBack: Duration {
        switch self {
        case .updatedSince(_, _, let lookBack), .filter(_, _, _, _, let lookBack): lookBack
        }
    }

    /// The query parameter that asks for the records at or after `value` (the value's text as the
    /// server wrote it: a timestamp without quotes, a number).
    ///
    /// - Throws: ``RemoteSourceError/invalidResponse(_:)`` for a value the expression's quoting cannot
    ///   carry, or an expression without `{value}`.
    func queryItem(for value: String) throws -> (name: String, value: String) {
        switch self {
        case .updatedSince(let parameter, _, _):
            return (parameter, value)
        case .filter(let parameter, let expression, let quoting, _, _):
            let placeholder = "{value}"
            guard let range = expression.range(of: placeholder) else {
                throw RemoteSourceError.invalidResponse(
                    "the changed-since expression \"\(expression)\" has no {value} to put the boundary in")
            }
            return (parameter, expression.replacingCharacters(in: range, with: try Self.quoted(value, quoting)))
        }
    }

    /// `value` written for an expression: quoted and escaped, or checked to need neither.
    static func quoted(_ value: String, _ quoting: HTTPPullShape.FilterQuoting) throws -> String {
        switch quoting {
        case .none:
            let allowed = value.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || " -+:._".unicodeScalars.contains($0)
            }
            guard allowed, !value.isEmpty else {
                throw RemoteSourceError.invalidResponse(
                    "the changed-since value \(value.prefix(80)) cannot be written into the filter unquoted; "
                        + "declare its quoting (quoting: .singleQuotes)")
            }
            return value
        case .singleQuotes:
            var text = "'"
            for character in value {
                if character == "'" || character == "\\" { text.append("\\") }
                text.append(character)
            }
            return text + "'"
        case .doubledSingleQuotes:
            return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        }
    }
}
