/// The most common passwords of at least eight characters, from public breach corpora
/// (the top of the "10k most common" lists). Checked case-insensitively.
enum CommonPasswords {
    static func contains(_ lowercased: String) -> Bool { list.contains(lowercased) }

    private static let list: Set<String> = [
        "12345678", "123456789", "1234567890", "password", "password1", "password12", "password123",
        "qwertyuiop", "qwerty123", "qwerty12", "1q2w3e4r", "1q2w3e4r5t", "1qaz2wsx", "zaq12wsx",
        "11111111", "00000000", "87654321", "88888888", "12341234", "11223344", "123123123",
        "abcd1234", "abc12345", "iloveyou", "iloveyou1", "sunshine", "princess", "football",
        "baseball", "basketball", "superman", "batman123", "trustno1", "whatever", "starwars",
        "welcome1", "welcome123", "letmein1", "passw0rd", "p@ssw0rd", "p@ssword", "computer",
        "michelle", "jennifer", "corvette", "mercedes", "liverpool", "chelsea1", "arsenal1",
        "charlie1", "jordan23", "michael1", "master12", "internet", "asdfghjk", "asdfghjkl",
        "zxcvbnm1", "qazwsxedc", "qwer1234", "q1w2e3r4", "q1w2e3r4t5", "aa123456", "a1234567",
        "1234qwer", "dragon12", "monkey12", "shadow12", "lovely12", "samantha", "football1",
        "blink182", "fuckyou1", "changeme", "secret12", "administrator", "admin123", "admin1234",
        "root1234", "test1234", "testtest", "passpass", "spotter1", "spotter123", "gymrat123",
        "powerlifting", "bodybuilding", "deadlift", "benchpress", "123qweasd", "qweasdzxc",
        "1234abcd", "abcdefgh", "abcdefg1", "987654321", "9876543210", "147258369", "159753456",
        "66666666", "99999999", "12121212", "myspace1", "linkedin", "facebook", "google123",
        "pokemon1", "minecraft", "loveyou1", "hello123", "hellokitty", "freedom1", "mustang1",
    ]
}
