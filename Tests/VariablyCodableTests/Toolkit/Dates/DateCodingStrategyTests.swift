import Foundation
import Testing
import VariablyCodable

@Suite struct DateCodingStrategyTests {
    // 2024-05-01T12:30:00Z
    static let noon: TimeInterval = 1_714_566_600

    @Test(arguments: [
        ("2024-05-01T12:30:00Z", noon),
        ("2024-05-01T12:30:00.250Z", noon + 0.25),
        ("2024-05-01T14:30:00+02:00", noon),
        ("2024-05-01T14:30:00+0200", noon),
        ("2024-05-01T07:30:00-05", noon),
        ("2024-05-01T12:30:00", noon),
        ("2024-05-01T12:30", noon),
        ("2024-05-01 12:30:00z", noon),
        ("2024-05-01", noon - 45_000),
        ("1714566600", noon),
        ("1714566600000", noon),
        ("1714566600.5", noon + 0.5),
    ])
    func oneStrategyReadsEveryFormat(text: String, expected: TimeInterval) throws {
        let date = try #require(DateCodingStrategy.flexible.date(from: text))
        #expect(abs(date.timeIntervalSince1970 - expected) < 0.0005)
    }

    @Test(arguments: ["2024-13-01", "2024-02-30", "2024-05-01T25:00:00Z", "2024-05-01T12:30:00+2", "yesterday", ""])
    func impossibleOrUnknownTextIsRefused(text: String) {
        #expect(DateCodingStrategy.flexible.date(from: text) == nil)
    }

    @Test func numbersBelowTheThresholdAreSecondsAndFromItMilliseconds() {
        let threshold = DateCodingStrategy.millisecondsThreshold
        #expect(threshold == 100_000_000_000)
        #expect(DateCodingStrategy.flexible.date(fromNumber: threshold - 1).timeIntervalSince1970 == threshold - 1)
        #expect(DateCodingStrategy.flexible.date(fromNumber: threshold).timeIntervalSince1970 == threshold / 1000)
        #expect(DateCodingStrategy.secondsSince1970.date(fromNumber: 2e11).timeIntervalSince1970 == 2e11)
        #expect(DateCodingStrategy.millisecondsSince1970.date(fromNumber: 1000).timeIntervalSince1970 == 1)
    }

    @Test func stringsWithoutAZoneUseTheDefaultZone() throws {
        let tokyo = DateCodingStrategy(defaultTimeZone: TimeZone(identifier: "Asia/Tokyo")!)
        let date = try #require(tokyo.date(from: "2024-05-01T21:30:00"))
        #expect(date.timeIntervalSince1970 == Self.noon)
    }

    @Test func jsonDecoderStrategyReadsMixedFormatsInOnePayload() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .flexible
        let json = #"["2024-05-01T12:30:00Z", "2024-05-01T14:30:00+02:00", 1714566600, 1714566600000, "1714566600"]"#
        let dates = try decoder.decode([Date].self, from: Data(json.utf8))
        #expect(dates.allSatisfy { $0.timeIntervalSince1970 == Self.noon })
    }

    @Test func jsonDecoderStrategyKeepsTheCodingPathOfABadDate() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .flexible
        do {
            _ = try decoder.decode([String: Date].self, from: Data(#"{"when": "soon"}"#.utf8))
            Issue.record("expected an error")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["when"])
            #expect(context.debugDescription.contains("\"soon\" is not a date"))
        }
    }

    @Test(arguments: [
        (DateCodingStrategy.iso8601, JSONValue.string("2024-05-01T12:30:00Z")),
        (.iso8601WithFractionalSeconds, .string("2024-05-01T12:30:00.250Z")),
        (.millisecondsSince1970, .int(1_714_566_600_250)),
        (.secondsSince1970, .double(1_714_566_600.25)),
        (.dateOnly, .string("2024-05-01")),
    ])
    func eachStrategyWritesItsOwnFormat(strategy: DateCodingStrategy, expected: JSONValue) {
        #expect(strategy.encodedValue(for: Date(timeIntervalSince1970: Self.noon + 0.25)) == expected)
    }

    @Test func datesBeforeNineteenSeventyFormatCorrectly() {
        let date = DateCodingStrategy.iso8601.date(from: "1969-12-31T23:59:59Z")
        #expect(date?.timeIntervalSince1970 == -1)
        #expect(DateCodingStrategy.iso8601.encodedValue(for: date!) == .string("1969-12-31T23:59:59Z"))
    }

    @Test func eachSourceWritesDatesItsOwnWayAndReadsThemBack() throws {
        let remote = try toolkitObject(JSONEncoder().encode(Member.sample, source: .remote))
        let local = try toolkitObject(JSONEncoder().encode(Member.sample, source: .local))
        #expect(remote["created_at"] as? String == "2024-05-01T12:30:00Z")
        #expect(local["created_at"] as? Int == 1_714_566_600_000)
        for source in [CodingSource.remote, .local] {
            let data = try JSONEncoder().encode(Member.sample, source: source)
            #expect(try JSONDecoder().decode(Member.self, from: data, source: source) == Member.sample)
        }
    }

    @Test func aKeyWithDatesReadsEveryFormat() throws {
        for created in [#""2024-05-01T14:30:00+02:00""#, "1714566600000", #""1714566600""#] {
            let json = #"{"id": 1, "age": 1, "created_at": \#(created), "tags": [], "status": "active"}"#
            let member = try JSONDecoder().decode(Member.self, from: Data(json.utf8))
            #expect(member.createdAt.timeIntervalSince1970 == Self.noon)
        }
    }

    @Test func aNullDateIsValueNotFoundOrItsDefault() throws {
        let json = #"{"id": 1, "age": 1, "created_at": null, "tags": [], "status": "active"}"#
        let error = try #require(throws: VariablyCodingError.self) {
            try JSONDecoder().decode(Member.self, from: Data(json.utf8))
        }
        #expect(error.reason == .valueNotFound)
        #expect(error.keyPath == "\\Member.createdAt")
        struct Stamp: VariablyCodable, EmptyInitializable {
            var at = Date(timeIntervalSince1970: 5)
            static let keySets = KeySets<Stamp>(defaultSource: .remote) {
                KeySet(.remote) {
                    Key(\.at, "at").dates(.millisecondsSince1970).default(ifNull: Date(timeIntervalSince1970: 0))
                }
            }
        }
        let (stamp, report) = try decodeReporting(Stamp.self, #"{"at": null}"#)
        #expect(stamp.at == Date(timeIntervalSince1970: 0))
        #expect(report.events.map(\.kind) == [.defaultUsed(.null)])
        #expect(
            try JSONDecoder().decode(Stamp.self, from: Data(#"{"at": 1500}"#.utf8)).at
                == Date(timeIntervalSince1970: 1.5))
        #expect(
            try JSONDecoder().decode(Stamp.self, from: Data(#"{"at": "1970-01-01T00:00:01.5Z"}"#.utf8)).at
                == Date(timeIntervalSince1970: 1.5))
    }

    @Test func aBadDateInAKeySetNamesTheProperty() throws {
        let json = #"{"id": 1, "age": 1, "created_at": "later", "tags": [], "status": "active"}"#
        let error = try #require(throws: VariablyCodingError.self) {
            try JSONDecoder().decode(Member.self, from: Data(json.utf8))
        }
        #expect(error.reason == .dataCorrupted)
        #expect(
            "\(error)"
                == #"Member.createdAt (remote, key "created_at"): "later" is not a date in any format tried: "#
                + "yyyy-MM-dd (midnight UTC); ISO 8601 yyyy-MM-ddTHH:mm[:ss[.fraction]] (a space for the T) with Z, "
                + "±hh:mm, ±hhmm, ±hh or no zone (UTC); a number or numeric string of seconds since 1970 "
                + "(milliseconds from 100000000000). at created_at"
        )
    }

    @Test func formattingIsSafeAcrossThreads() async {
        let results = await withTaskGroup(of: Bool.self) { group in
            for offset in 0..<64 {
                group.addTask {
                    let date = Date(timeIntervalSince1970: Self.noon + Double(offset) * 3_601.5)
                    let text = DateCodingStrategy.iso8601WithFractionalSeconds.encodedValue(for: date).stringValue!
                    return DateCodingStrategy.flexible.date(from: text) == date
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64 && results.allSatisfy { $0 })
    }

    @Test func datesOnAPropertyThatIsNotADateIsAProblem() throws {
        struct Wrong: VariablyCodable, EmptyInitializable {
            var day = ""
            static let keySets = KeySets<Wrong>(defaultSource: .remote) {
                KeySet(.remote) { Key(\.day, "day").dates(.dateOnly) }
            }
        }
        #expect(try optionProblem(of: Wrong.keySets).contains("dates(_:) applies to Date, Date? and [Date] properties"))
    }

    @Test func keySetOptionsReachOnlyThePropertiesTheyApplyTo() throws {
        let local = try #require(Member.keySets[CodingSource.local])
        #expect(local.entry(for: \Member.createdAt)?.options.dates == .millisecondsSince1970)
        #expect(local.entry(for: \Member.age)?.options.isEmpty == true)
        #expect(local.entry(for: \Member.tags)?.options.isEmpty == true)
    }
}

@Suite struct PropertyListDateTests {
    @Test func aNativePropertyListDateIsReadAsItIsEvenWithADateStrategy() throws {
        let object: [String: Any] = [
            "id": 1, "age": 2, "created_at": Date(timeIntervalSince1970: 1_714_566_600), "tags": ["a"],
            "status": "active",
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let member = try PropertyListDecoder().decode(Member.self, from: data, source: .local)
        #expect(member.createdAt == Date(timeIntervalSince1970: 1_714_566_600))
    }

    @Test func localPropertyListsRoundTripWithMillisecondDates() throws {
        let data = try PropertyListEncoder().encode(Member.sample, source: .local)
        #expect(try PropertyListDecoder().decode(Member.self, from: data, source: .local) == Member.sample)
    }
}

@Suite struct FarDateOutputTests {
    /// Found by `Fuzz/run dates`: a date read from a huge number trapped when written back (`Int64` of a
    /// double out of range).
    @Test(arguments: ["-651621365166566586900", "651621365166566586900", "99999999999999999999999"])
    func aDateReadFromAHugeNumberWritesBackWithoutTrapping(text: String) throws {
        let strategies: [DateCodingStrategy] = [
            .flexible, .secondsSince1970, .millisecondsSince1970, .iso8601, .iso8601WithFractionalSeconds, .dateOnly,
        ]
        var read = 0
        for reading in strategies {
            guard let date = reading.date(from: text) else { continue }
            read += 1
            for writing in strategies { _ = writing.encodedValue(for: date) }
            var zoned = DateCodingStrategy.dateOnly
            zoned.defaultTimeZone = TimeZone(identifier: "Asia/Tokyo")!
            _ = zoned.encodedValue(for: date)
        }
        #expect(read > 0)
        for date in [
            Date(timeIntervalSince1970: .infinity), Date(timeIntervalSince1970: -.infinity),
            Date(timeIntervalSince1970: .nan),
        ] {
            for writing in strategies { _ = writing.encodedValue(for: date) }
        }
    }

    /// Outside years 0...9999 the writer uses ISO 8601's expanded years (`10000-01-01`, `-1199-02-15`);
    /// every strategy reads them back, so a date the package wrote is never unreadable.
    @Test func expandedYearsWrittenOutside0Through9999ReadBack() throws {
        let dates = [
            Date(timeIntervalSince1970: 253_402_300_800),  // 10000-01-01T00:00:00Z
            Date(timeIntervalSince1970: -99_999_999_999),  // -1199-02-15T14:13:21Z
            Date(timeIntervalSince1970: -62_167_219_200),  // 0000-01-01T00:00:00Z
            Date(timeIntervalSince1970: 1e13),  // year 318857
        ]
        for date in dates {
            for writing in [DateCodingStrategy.flexible, .iso8601] {
                guard case .string(let text) = writing.encodedValue(for: date) else {
                    Issue.record("\(writing) wrote no string")
                    continue
                }
                let read = try #require(DateCodingStrategy.flexible.date(from: text), "\(text) does not read back")
                #expect(abs(read.timeIntervalSince1970 - date.timeIntervalSince1970) < 1, "\(text)")
            }
            guard case .string(let day) = DateCodingStrategy.dateOnly.encodedValue(for: date) else { continue }
            #expect(DateCodingStrategy.flexible.date(from: day) != nil, "\(day) does not read back")
        }
        #expect(DateCodingStrategy.flexible.date(from: "+10000-01-01T00:00:00Z") == dates[0])
        #expect(DateCodingStrategy.flexible.date(from: "-1199-02-15T14:13:21Z") == dates[1])
        #expect(DateCodingStrategy.flexible.date(from: "1234567890-01-01") == nil)  // ten digits
        #expect(DateCodingStrategy.flexible.date(from: "-99") == Date(timeIntervalSince1970: -99))  // still a number
    }
}
