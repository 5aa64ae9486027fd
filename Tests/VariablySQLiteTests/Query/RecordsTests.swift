import Foundation
import Testing
import UserSyncModels
import VariablySQLite
import VariablyTestSupport

@Suite struct RecordsTests {
    @Test func insertAndFetch() throws {
        let (db, recorder) = try TestDatabase.users()
        let users = User.samples(20)
        try db.write { try $0.insert(users) }
        #expect(recorder.recorded.filter { $0.hasPrefix("INSERT") }.count == 20)
        #expect(
            recorder.recorded.contains(
                #"INSERT INTO "users" ("id", "user_name", "email", "age", "is_active", "score", "updated_at", "tags", "nickname", "favorite_post_id") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"#
            ))
        #expect(try db.read { try $0.fetchAll(User.self) } == users)
        #expect(try db.read { try $0.fetch(User.self, id: Int64(5)) } == users[4])
        #expect(try db.read { try $0.fetch(User.self, id: Int64(500)) } == nil)
        #expect(try db.read { try $0.count(User.self) } == 20)
    }

    @Test func batchesRunInOneSavepointWithOneStatement() throws {
        let (db, recorder) = try TestDatabase.users()
        try db.write { try $0.insert(User.samples(3)) }
        #expect(
            recorder.recorded.map { $0.hasPrefix("INSERT") ? "INSERT" : $0 } == [
                "BEGIN IMMEDIATE TRANSACTION", #"SAVEPOINT "variably_savepoint_1""#, "INSERT", "INSERT", "INSERT",
                #"RELEASE SAVEPOINT "variably_savepoint_1""#, "COMMIT TRANSACTION",
            ])
    }

    @Test func aSingleRecordNeedsNoSavepoint() throws {
        let (db, recorder) = try TestDatabase.users()
        try db.write { try $0.upsert(User.sample(0)) }
        #expect(recorder.recorded.count == 3)
        #expect(recorder.recorded[1].hasPrefix(#"INSERT INTO "users""#))
        #expect(
            recorder.recorded[1].hasSuffix(
                #""nickname" = excluded."nickname", "favorite_post_id" = excluded."favorite_post_id""#))
    }

    @Test func aFailingBatchInsertsNothing() throws {
        let (db, _) = try TestDatabase.users(2)
        var batch = (10..<15).map(User.sample)
        batch.append(User.sample(0))  // the primary key 1 exists
        try db.write { db in
            #expect(throws: SQLiteError.self) { try db.insert(batch) }
        }
        #expect(try db.read { try $0.count(User.self) } == 2)
    }

    @Test func duplicatesAreConstraintErrors() throws {
        let (db, _) = try TestDatabase.users(2)
        var caught: [ResultCode] = []
        var sameEmail = User.sample(5)
        sameEmail.email = User.sample(0).email
        for user in [User.sample(0), sameEmail] {
            do {
                try db.write { try $0.insert(user) }
            } catch let error as SQLiteError {
                caught.append(error.code)
                #expect(error.arguments?.positional.first == .integer(user.id))
                #expect(error.arguments?.positional.count == 10)
                #expect(!error.description.contains(user.email))
            }
        }
        #expect(caught == [.constraintPrimaryKey, .constraintUnique])
    }

    @Test func upsertInsertsNewRowsAndUpdatesExistingOnes() throws {
        let (db, recorder) = try TestDatabase.users(4)
        var changed = User.samples(8)
        for index in changed.indices { changed[index].age += 100 }
        try db.write { try $0.upsert(changed[2...]) }
        #expect(
            recorder.recorded.contains(
                #"INSERT INTO "users" ("id", "user_name", "email", "age", "is_active", "score", "updated_at", "tags", "nickname", "favorite_post_id") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ("id") DO UPDATE SET "user_name" = excluded."user_name", "email" = excluded."email", "age" = excluded."age", "is_active" = excluded."is_active", "score" = excluded."score", "updated_at" = excluded."updated_at", "tags" = excluded."tags", "nickname" = excluded."nickname", "favorite_post_id" = excluded."favorite_post_id""#
            ))
        let users = try db.read { try $0.fetchAll(User.self) }
        #expect(users == Array(User.samples(2)) + changed[2...])
    }

    @Test func updateChangesEveryColumnOfOneRow() throws {
        let (db, recorder) = try TestDatabase.users(3)
        var user = User.sample(1)
        user.userName = "renamed"
        user.nickname = nil
        user.tags = ["new"]
        #expect(try db.write { try $0.update(user) })
        #expect(
            recorder.recorded.contains {
                $0.hasPrefix(#"UPDATE "users" SET "user_name" = ?, "email" = ?"#) && $0.hasSuffix(#"WHERE "id" = ?"#)
            })
        #expect(try db.read { try $0.fetch(User.self, id: user.id) } == user)
        #expect(try db.write { try $0.update(User.sample(50)) } == false)
    }

    @Test func deleteByIDAndWhere() throws {
        let (db, _) = try TestDatabase.users(10)
        #expect(try db.write { try $0.delete(User.self, id: Int64(1)) })
        #expect(try db.write { try $0.delete(User.self, id: Int64(1)) } == false)
        let deleted = try db.write { try $0.delete(User.self, where: #Predicate { $0.age < 22 }) }
        #expect(deleted == 3)
        #expect(try db.read { try $0.fetchAll(User.self).map(\.id) } == [5, 6, 7, 8, 9, 10])
        #expect(try db.write { try $0.deleteAll(User.self) } == 6)
    }

    @Test func forEachVisitsMatchingRowsAndAllowsNestedQueries() throws {
        let (db, _) = try TestDatabase.users(50)
        var visited: [Int64] = []
        try db.read { db in
            try db.forEach(
                User.self, where: #Predicate { $0.age < 30 }, sortedBy: [SortDescriptor(\.id, order: .reverse)]
            ) { user in
                visited.append(user.id)
                // The same query, nested: the iteration's statement is its own.
                let again = try db.fetch(
                    User.self, where: #Predicate { $0.age < 30 }, sortedBy: [SortDescriptor(\.id, order: .reverse)])
                #expect(again.contains(user))
            }
        }
        #expect(visited == User.samples(50).filter { $0.age < 30 }.map(\.id).reversed())
    }

    @Test func countWhere() throws {
        let (db, _) = try TestDatabase.users(30)
        let expected = User.samples(30).filter(\.isActive).count
        #expect(try db.read { try $0.count(User.self, where: #Predicate { $0.isActive }) } == expected)
    }

    @Test func hostileStringsAsModelValues() throws {
        let (db, _) = try TestDatabase.users()
        let hostile = ["'; DROP TABLE users; --", "\" OR \"\"=\"", "%", "_", "\\", "a'b\"c"]
        let users = hostile.enumerated().map { index, text in
            var user = User.sample(index)
            user.userName = text
            user.tags = [text, text + text]
            user.nickname = text
            return user
        }
        try db.write { try $0.insert(users) }
        #expect(try db.read { try $0.fetchAll(User.self) } == users)
        for user in users {
            let name = user.userName
            let found = try db.read { try $0.fetch(User.self, where: #Predicate { $0.userName == name }) }
            #expect(found == [user])
            let containing = try db.read { try $0.fetch(User.self, where: #Predicate { $0.userName.contains(name) }) }
            #expect(containing == users.filter { $0.userName.contains(name) })
        }
    }
}
