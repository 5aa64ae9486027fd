import Foundation

/// How a collection is asked for its records by the values of one field: one value a request
/// (``parameter(_:)``), or many values in one request, as a list (``list(parameter:separator:maximum:)``)
/// or a filter expression (``filter(parameter:each:separator:maximum:)``).
///
/// The push looks creates up after a lost answer (a kill, a timeout): by their client reference
/// (``HTTPRecordEndpoints/ClientReference``), or by the ids the device chose
/// (``HTTPRecordEndpoints/lookingUpChosenIDs(_:)``). With a form that takes many values, the creates a
/// sync has in doubt are found with one request per `maximum` of them, not one each.
///
/// An answer proves a create absent only when it is whole: when the API's pull shape tells the answer
/// has no further page (`next` is `null`, a declared ``HTTPPullShape/HasMore`` says so, or the answer
/// is empty). A create the answer leaves out otherwise is looked up alone, as is a value with characters
/// a list or an expression could misread (anything but letters, digits, `-`, `_`, `.` and `:`), and
/// every value when the server refuses the request (`400`, `404`, `422`: it does not know the filter).
///
/// ```swift
/// // Django REST Framework with django-filter: GET /comments/?client_id__in=6f96...,1b4e...
/// .init(field: "client_id", lookUp: .list(parameter: "client_id__in"))
/// // PocketBase: GET /api/collections/posts/records?filter=(id='a1b2c3'||id='d4e5f6')
/// HTTPRecordEndpoints(path: "api/collections/posts/records", newIDs: .pocketBase)
///     .lookingUpChosenIDs(.filter(parameter: "filter", each: "id='{value}'", separator: "||"))
/// ```
public struct HTTPLookUp: Sendable, Equatable {
    enum Form: Sendable, Equatable {
        case parameter(String)
        case list(String, separator: String)
        case filter(String, each: String, separator: String)
    }

    let form: Form
    /// The most values one request asks for.
    public let maximum: Int

    /// One value a request: `?{name}={value}`.
    ///
    /// ```swift
    /// HTTPLookUp.parameter("client_id")   // GET /comments/?client_id=6f96...
    /// ```
    public static func parameter(_ name: String) -> HTTPLookUp {
        HTTPLookUp(form: .parameter(name), maximum: 1)
    }

    /// Up to `maximum` values in one parameter, joined by `separator`: `?{parameter}=a,b,c` (Django's `__in`
    /// lookups through django-filter, JSON:API's `filter[client_id]=a,b`).
    ///
    /// ```swift
    /// HTTPLookUp.list(parameter: "client_id__in")   // GET /comments/?client_id__in=6f96...,1b4e...
    /// ```
    public static func list(parameter: String, separator: String = ",", maximum: Int = 50) -> HTTPLookUp {
        HTTPLookUp(form: .list(parameter, separator: separator), maximum: maximum)
    }

    /// Up to `maximum` values in a filter expression: `each`, with `{value}` replaced by each value, joined
    /// by `separator` and put in parentheses, as the parameter `parameter`.
    ///
    /// ```swift
    /// // PocketBase: ?filter=(id='a1b2c3'||id='d4e5f6')
    /// HTTPLookUp.filter(parameter: "filter", each: "id='{value}'", separator: "||")
    /// ```
    public static func filter(parameter: String, each: String, separator: String, maximum: Int = 50) -> HTTPLookUp {
        HTTPLookUp(form: .filter(parameter, each: each, separator: separator), maximum: maximum)
    }

    /// The parameter the look-up sets, to name in errors.
    var parameterName: String {
        switch form {
        case .parameter(let name), .list(let name, _), .filter(let name, _, _): name
        }
    }

    /// Whether one request may ask for several values.
    var takesMany: Bool {
        if case .parameter = form { false } else { maximum > 1 }
    }

    /// What is wrong with the declaration, if anything: an empty parameter, a limit below 1, a filter
    /// without `{value}`.
    var problem: (requirement: String, fix: String)? {
        if parameterName.isEmpty { return ("a query parameter's name", "name the parameter the collection filters by") }
        if maximum < 1 { return ("a maximum of at least 1", "ask for 1 or more values a request (it is \(maximum))") }
        if case .filter(_, let each, _) = form, !each.contains("{value}") {
            return ("a filter with {value}", "write each value's term with {value}, e.g. \"id='{value}'\"")
        }
        return nil
    }

    /// Whether `value` can go with others in one request: letters, digits, `-`, `_`, `.` and `:` only,
    /// which no list separator or expression quote can be.
    static func isPlain(_ value: String) -> Bool {
        !value.isEmpty
            && value.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.:".unicodeScalars.contains($0))
            }
    }

    /// The query item (`name=value`, percent-encoded) that asks for `values`.
    func queryItem(for values: [String]) -> String {
        let (name, value): (String, String)
        switch form {
        case .parameter(let parameter): (name, value) = (parameter, values.first ?? "")
        case .list(let parameter, let separator): (name, value) = (parameter, values.joined(separator: separator))
        case .filter(let parameter, let each, let separator):
            let terms = values.map { each.replacingOccurrences(of: "{value}", with: $0) }
            (name, value) = (parameter, "(" + terms.joined(separator: separator) + ")")
        }
        return HTTPRequestHead.percentEncodedQueryValue(name) + "=" + HTTPRequestHead.percentEncodedQueryValue(value)
    }
}

extension HTTPRecordEndpoints {
    /// The same endpoints, finding creates in doubt whose ids the device chose (PocketBase's, a
    /// `PUT` of a new record) many at a time with `lookUp`, instead of one `GET {path}/{id}` each.
    ///
    /// ```swift
    /// HTTPRecordEndpoints(path: "api/collections/posts/records", newIDs: .pocketBase)
    ///     .lookingUpChosenIDs(.filter(parameter: "filter", each: "id='{value}'", separator: "||"))
    /// ```
    ///
    /// - Parameter lookUp: How the collection is asked for several ids at once.
    /// - Returns: The same endpoints, looking up chosen ids many at a time.
    public func lookingUpChosenIDs(_ lookUp: HTTPLookUp) -> HTTPRecordEndpoints {
        var copy = self
        copy.chosenIDLookUp = lookUp
        return copy
    }
}
