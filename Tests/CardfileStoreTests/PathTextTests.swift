import CardfileStore
import Testing

/// Paths people type, taken apart without Foundation's NSString (which traps on some).
@Suite(.timeLimit(.minutes(10))) struct PathTextTests {
    @Test(arguments: [
        ("a", ".", "a", ""), (".", ".", ".", ""), ("é", ".", "é", ""), ("", ".", "", ""),
        ("/", "/", "", ""), ("/x.csv", "/", "x.csv", "csv"), ("dir/", ".", "dir", ""),
        ("data/books.CSV", "data", "books.CSV", "csv"), ("/a/b/.hidden", "/a/b", ".hidden", ""),
        ("a b/c d.tar.gz", "a b", "c d.tar.gz", "gz"), ("~/x.jsonl", "~", "x.jsonl", "jsonl"),
    ])
    func splits(_ path: String, _ folder: String, _ name: String, _ ext: String) {
        #expect(PathText.folder(of: path) == folder)
        #expect(PathText.name(of: path) == name)
        #expect(PathText.lowercasedExtension(of: path) == ext)
    }
}
