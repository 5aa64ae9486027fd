// MARK: - Toolkit modifiers

extension KeySet {
    /// Decodes every scalar of this source leniently, unless a key says `lenient(false)`.
    ///
    /// ```swift
    /// KeySet(.remote) { Key(\.age, "age") }.lenient()
    /// ```
    public func lenient(_ isLenient: Bool = true) -> KeySet {
        var options = self.options
        options.isLenient = isLenient
        return KeySet(self, options: options, isStrict: isStrict)
    }

    /// Reads and writes every `Date` property of this source with `strategy`, unless a key says otherwise.
    ///
    /// ```swift
    /// KeySet(.local, style: .snakeCase).dates(.millisecondsSince1970)
    /// ```
    public func dates(_ strategy: DateCodingStrategy) -> KeySet {
        var options = self.options
        options.dates = strategy
        return KeySet(self, options: options, isStrict: isStrict)
    }

    /// Applies `policy` to failing elements of every array and dictionary property of this source.
    ///
    /// ```swift
    /// KeySet(.remote) { Key(\.tags, "tags") }.elements(.remove)
    /// ```
    public func elements(_ policy: ElementPolicy) -> KeySet {
        var options = self.options
        options.elementPolicy = policy
        return KeySet(self, options: options, isStrict: isStrict)
    }

    /// Turns everything a ``DecodeReport`` would record for this source into an error.
    ///
    /// ```swift
    /// KeySet(.local, style: .snakeCase).strict()     // the cache we write ourselves must be clean
    /// ```
    public func strict(_ isStrict: Bool = true) -> KeySet {
        KeySet(self, options: options, isStrict: isStrict)
    }
}
