import Testing
import VariablySQLite
@Test func linksTheSystemLibrary() { #expect(sqliteLibraryVersion.hasPrefix("3.")) }
