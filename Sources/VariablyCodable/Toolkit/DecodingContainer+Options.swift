import Foundation

// The toolkit's decoding path: defaults, lenient scalars, dates, element policies, unknown enum
// cases, transforms and the report, applied in one place so that every backend gets them.

extension DecodingContainer {
    /// Handles an error of the plain path: a decoder that asks for lenient scalars gets a second, lenient
    /// attempt (a value that decodes plainly needs no conversion), anything else is wrapped.
    ///
    /// - Throws: ``VariablyCodingError``.
    @usableFromInline
    func recover<Value: Decodable>(from error: any Error, _ type: Value.Type, entry index: Int, isRequired: Bool)
        throws -> Value?
    {
        if error is DecodingError, KeyOptions.isLenientType(Value.self), decodingOptions?.isLenient == true {
            return try decodeApplyingOptions(Value.self, entry: index, isRequired: isRequired)
        }
        throw wrap(error, entry: index)
    }

    /// Decodes entry `index` applying its ``KeyOptions`` and the decoder's ``DecodingOptions``.
    ///
    /// - Returns: The value; `nil` only when `isRequired` is `false` and the value is missing or null
    ///   without a default.
    /// - Throws: ``VariablyCodingError``.
    @usableFromInline
    func decodeApplyingOptions<Value: Decodable>(_ type: Value.Type, entry index: Int, isRequired: Bool) throws
        -> Value?
    {
        let entry = keySet.entries[index]
        let options = entry.options
        let decoderOptions = decodingOptions
        let isLenient = options.isLenient ?? decoderOptions?.isLenient ?? false
        do {
            if options.isEmpty && !(isLenient && KeyOptions.isLenientType(Value.self)) {
                return isRequired
                    ? try backend.decode(Value.self, entry: index) : try backend.decodeIfPresent(Value.self, entry: index)
            }
            return try decodeWithOptions(
                Value.self, entry: entry, index: index, isLenient: isLenient, isRequired: isRequired,
                decoderOptions: decoderOptions)
        } catch {
            throw wrap(error, entry: index)
        }
    }

    private func decodeWithOptions<Value: Decodable>(
        _ type: Value.Type, entry: KeyEntry<Model>, index: Int, isLenient: Bool, isRequired: Bool,
        decoderOptions: DecodingOptions?
    ) throws -> Value? {
        // Every event of this property is recorded (or refused) with the options read once above.
        let record = { (kind: DecodeEvent.Kind, path: [any CodingKey], detail: String?, error: () -> DecodingError) in
            try self.record(kind, entry: entry, codingPath: path, detail: detail, options: decoderOptions, error: error)
        }
        let options = entry.options
        let path = valuePath(of: entry)
        guard backend.contains(entry: index) else {
            if let value = options.defaultIfMissing {
                try record(.defaultUsed(.missing), path, nil) {
                    DecodingError.keyNotFound(
                        entry.paths[0].leaf,
                        DecodingError.Context(codingPath: codingPath, debugDescription: "No value for \(entry.key)."))
                }
                return declared(value, as: Value.self)
            }
            return isRequired ? try backend.decode(Value.self, entry: index) : nil
        }
        if try backend.decodeIfPresent(PresenceProbe.self, entry: index) == nil {
            if let value = options.defaultIfNull {
                try record(.defaultUsed(.null), path, nil) {
                    DecodingError.valueNotFound(
                        Value.self, DecodingError.Context(codingPath: path, debugDescription: "The value is null."))
                }
                return declared(value, as: Value.self)
            }
            return isRequired ? try backend.decode(Value.self, entry: index) : nil
        }
        var pending: [PendingEvent] = []
        let value: Value
        do {
            value = try decodePresent(
                Value.self, entry: entry, index: index, isLenient: isLenient, path: path, pending: &pending)
        } catch {
            if let fallback = options.unknownCaseFallback, case DecodingError.dataCorrupted = error,
                let raw = try? backend.decode(JSONValue.self, entry: index), raw.stringValue != nil || raw.doubleValue != nil
            {
                try record(.unknownEnumCase(rawValue: raw.description), path, nil) {
                    error as! DecodingError
                }
                return declared(fallback, as: Value.self)
            }
            if let value = options.defaultIfInvalid {
                try record(.defaultUsed(.invalid), path, "\(error)") {
                    error as? DecodingError
                        ?? DecodingError.dataCorrupted(
                            DecodingError.Context(codingPath: path, debugDescription: "\(error)", underlyingError: error))
                }
                return declared(value, as: Value.self)
            }
            throw error
        }
        for event in pending {
            try record(event.kind, event.codingPath, event.detail) { event.error }
        }
        return value
    }

    /// A present, non-null value, through the first option that applies to its type.
    private func decodePresent<Value: Decodable>(
        _ type: Value.Type, entry: KeyEntry<Model>, index: Int, isLenient: Bool, path: [any CodingKey],
        pending: inout [PendingEvent]
    ) throws -> Value {
        let options = entry.options
        if let transform = options.transform {
            return declared(try transform.decode(from: backend, entry: index), as: Value.self)
        }
        if let dates = options.dates {
            if Value.self == Date.self {
                guard let raw = try? backend.decode(JSONValue.self, entry: index) else {
                    // Not a string or a number: a property list's native date, read as it is.
                    return try backend.decode(Value.self, entry: index)
                }
                return declared(try dates.date(from: raw, codingPath: path), as: Value.self)
            }
            if Value.self == [Date].self {
                let raws = try backend.decode([JSONValue].self, entry: index)
                let list = try raws.enumerated().map { offset, raw in
                    try dates.date(from: raw, codingPath: path + [AnyCodingKey(intValue: offset)])
                }
                return declared(list, as: Value.self)
            }
        }
        if let collection = Value.self as? any ElementPolicyDecodable.Type {
            let onEvent = { (event: ElementEvent) in
                pending.append((event.kind, event.error.contextCodingPath, event.error, event.detail))
            }
            if isLenient,
                let decoded = try collection.decodeLeniently(
                    policy: options.elementPolicy ?? .fail, codingPath: path,
                    using: { try backend.decode($0, entry: index) }, onEvent: onEvent)
            {
                return declared(decoded, as: Value.self)
            }
            if let policy = options.elementPolicy {
                let decoded = try collection.decode(
                    policy: policy, using: { try backend.decode($0, entry: index) }, onEvent: onEvent)
                return declared(decoded, as: Value.self)
            }
        }
        if isLenient, let scalar = Value.self as? any LenientScalar.Type {
            let raw = try backend.decode(JSONValue.self, entry: index)
            guard let (value, isCoerced) = scalar.lenientValue(from: raw) else {
                throw DecodingError.typeMismatch(
                    Value.self,
                    DecodingError.Context(
                        codingPath: path, debugDescription: "Cannot convert \(raw.kindName) \(raw) to \(Value.self) without loss."))
            }
            if isCoerced {
                let error = DecodingError.typeMismatch(
                    Value.self,
                    DecodingError.Context(
                        codingPath: path, debugDescription: "Strict mode: refused to coerce \(raw.kindName) \(raw) to \(Value.self)."))
                pending.append((.coerced(from: "\(raw.kindName) \(raw)", to: "\(Value.self)"), path, error, nil))
            }
            return declared(value, as: Value.self)
        }
        return try backend.decode(Value.self, entry: index)
    }

    /// Records an event in the report, or throws `error()` in strict mode.
    private func record(
        _ kind: DecodeEvent.Kind, entry: KeyEntry<Model>, codingPath: [any CodingKey], detail: String?,
        options: DecodingOptions?, error: () -> DecodingError
    ) throws {
        if keySet.isStrict || options?.isStrict == true {
            throw error()
        }
        options?.report?.record(
            DecodeEvent(
                kind: kind, source: source, modelType: "\(Model.self)", keyPath: "\(entry.keyPath)",
                propertyName: entry.propertyName, codingPath: codingPath, detail: detail))
    }

    /// The coding path of the entry's value (its first alternative).
    private func valuePath(of entry: KeyEntry<Model>) -> [any CodingKey] {
        codingPath + entry.paths[0].components.keys.map { AnyCodingKey($0) as any CodingKey }
    }

    private func declared<Value>(_ value: Any, as type: Value.Type) -> Value {
        guard let value = value as? Value else {
            preconditionFailure("\(value) is not a \(Value.self): check the options of \(Model.self)'s key set")
        }
        return value
    }
}

/// An event found while decoding a value, recorded once the whole value has decoded.
private typealias PendingEvent = (kind: DecodeEvent.Kind, codingPath: [any CodingKey], error: DecodingError, detail: String?)

/// Decodes anything without reading it: tells a present value from `null`.
private struct PresenceProbe: Decodable {
    init(from decoder: any Decoder) {}
}
