import Testing
@testable import CardfileStore

/// PostgreSQL's dollar quoting on the SQL screen: a function's or a DO block's body is one
/// string, so its semicolons end no statement; `$1` and words with `$` stay what they were.
@Suite("Dollar quotes")
struct DollarQuoteTests {
    @Test func aBodyInDollarQuotesIsOneStatement() throws {
        let block = "DO $$ BEGIN PERFORM 1; PERFORM 2; END $$"
        #expect(SQLStatement.firstStatement(block)?.text == block)
        #expect(SQLStatement.firstStatement(block)?.second == nil)
        let tagged = "CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $body$ BEGIN RETURN 1; END $body$"
        #expect(SQLStatement.firstStatement(tagged)?.second == nil)
        // A $$ inside a tagged body does not end it.
        let nested = "SELECT $a$ x $$ y; $a$"
        #expect(SQLStatement.firstStatement(nested)?.second == nil)
        // A second statement after the body is still one too many.
        #expect(SQLStatement.firstStatement(block + "; SELECT 1")?.second != nil)
    }

    @Test func otherDollarsAreWhatTheyWere() throws {
        let tokens = try SQLTokenizer.tokenize("SELECT $1, a$b, $x FROM t")
        #expect(tokens.map(\.value) == ["SELECT", "$", "1", ",", "a$b", ",", "$", "x", "FROM", "t"])
        #expect(throws: SQLTokenizerError.self) { try SQLTokenizer.tokenize("SELECT $$ never closed") }
    }
}
