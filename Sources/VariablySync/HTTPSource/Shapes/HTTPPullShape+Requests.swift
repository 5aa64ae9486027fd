import Foundation
import VariablyCodable

// MARK: - Requests, and the values they compare

extension HTTPPullShape {
    /// The URL of the page that `state` points at.
    func url(base: URL, state: HTTPPullState, limit: Int) throws -> URL {
        if let next = state.next {
            guard let url = URL(string: next, relativeTo: base)?.absoluteURL, url.scheme != nil else {
                throw RemoteSourceError.invalidResponse("the next page's URL \"\(next.prefix(200))\" is not a URL")
            }
            // The request hook and the headers (tokens, API keys) go with every request: a page link to
            // another origin would hand them to a host the app never named, and one from https to http
            // would send them in clear text.
            guard HTTPRequestHead.origin(of: url) == HTTPRequestHead.origin(of: base) else {
                throw RemoteSourceError.invalidResponse(
                    "the next page's URL \"\(next.prefix(200))\" is not on the origin of \(base.absoluteString.prefix(200)) "
                        + "(scheme, host and port): the source's credentials are sent only there")
            }
            return url
        }
        var parameters = query.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        switch paging {
        case .token(let parameter, _): if let token = state.token { parameters.append((parameter, token)) }
        case .page(let parameter, let first): parameters.append((parameter, String(state.page ?? first)))
        case .offset(let parameter): parameters.append((parameter, String(state.offset ?? 0)))
        case .nextLink, .nextURL: break
        }
        if let changedSince, let since = state.since {
            let value = try JSONValue(parsing: since)
            let lookBack = changedSince.lookBack
            let asked =
                lookBack > .zero && state.isPagingBySince != true ? try Self.value(value, lookingBack: lookBack) : value
            if let text = JSONBody.text(of: asked) { parameters.append(try changedSince.queryItem(for: text)) }
        }
        if let limitParameter { parameters.append((limitParameter, String(limit))) }
        let collection = path.isEmpty ? base : base.appendingPathComponent(path)
        guard var components = URLComponents(url: collection, resolvingAgainstBaseURL: false) else {
            throw RemoteSourceError.invalidResponse("cannot build a URL from \(base)")
        }
        let encoded = parameters.map {
            HTTPRequestHead.percentEncodedQueryValue($0.0) + "=" + HTTPRequestHead.percentEncodedQueryValue($0.1)
        }
        let existing = components.percentEncodedQuery.map { [$0] } ?? []
        components.percentEncodedQuery =
            (existing + encoded).isEmpty ? nil : (existing + encoded).joined(separator: "&")
        guard let url = components.url else {
            throw RemoteSourceError.invalidResponse("cannot build a URL from \(base)")
        }
        return url
    }

    /// A digest of a record's bytes, stored in the cursor: the same on every run.
    static func digest(of bytes: ArraySlice<UInt8>) -> String {
        bytes.withUnsafeBytes(StableDigest.hex(of:))
    }

    /// `value` as compact JSON text.
    static func text(of value: JSONValue) throws -> String { value.jsonString() }

    /// The order of two `changedSince` values: numbers by value, strings by their text (ISO 8601 in one
    /// format sorts as text); `nil` for values that do not compare.
    static func order(_ a: JSONValue, _ b: JSONValue) -> Int? {
        OrderKey(a).order(to: OrderKey(b))
    }

    /// A `changedSince` value as the order of a pull compares it, read once: a page compares each
    /// record's value with the largest so far and with the boundary asked for, and a timestamp is
    /// parsed once a record rather than once a comparison.
    struct OrderKey {
        /// A string's text, and its instant when it is a timestamp.
        let text: String?
        let instant: Double?
        /// A number's value.
        let number: Double?

        init(_ value: JSONValue) {
            if case .string(let text) = value {
                self.text = text
                instant = HTTPPullShape.timestamp(text)?.timeIntervalSince1970
                number = nil
            } else {
                (text, instant, number) = (nil, nil, HTTPPullShape.number(value))
            }
        }

        /// The value as seconds (since 1970 for a timestamp), as ``HTTPPullShape/seconds(of:)`` reads it.
        var seconds: Double? { instant ?? number }

        /// The order of this value against `other`: timestamps by their instant (`…:37:02Z` is before
        /// `…:37:02.5Z`, though not as text), other strings by their text, numbers by value; `nil` for
        /// values that do not compare.
        func order(to other: OrderKey) -> Int? {
            if let x = text, let y = other.text {
                if x != y, let first = instant, let second = other.instant {
                    return first == second ? 0 : (first < second ? -1 : 1)
                }
                return x == y ? 0 : (x < y ? -1 : 1)
            }
            guard let x = number, let y = other.number else { return nil }
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    fileprivate static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        case .bigNumber(let text): Double(text)
        default: nil
        }
    }
}
