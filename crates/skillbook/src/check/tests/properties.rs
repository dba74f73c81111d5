//! Properties of the checker over generated front matter.

use super::*;
use proptest::prelude::*;

/// Lines that look like front matter: keys, values, quotes, indents, tabs, colons, dashes.
fn front_matter_line() -> impl Strategy<Value = String> {
    "( |\t|  )?(name|description|metadata|license|-|\"name\"|x)?(:|: | :)?[ a-zA-Zé_:\"'\\-\t#&*\\[\\]{}|>\r]{0,12}"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn the_rules_never_panic_and_positions_lie_inside_the_file(
        lines in proptest::collection::vec(front_matter_line(), 0..8),
        crlf in any::<bool>(),
        closed in any::<bool>(),
    ) {
        let end = if crlf { "\r\n" } else { "\n" };
        let mut text = format!("---{end}{}{end}", lines.join(end));
        if closed {
            text.push_str("---");
            text.push_str(end);
        }
        // Lines as the file has them: ended by `\n` only (a lone `\r` ends none).
        let file_lines: Vec<&str> = text.split('\n').collect();
        for mode in [Mode::Lenient, Mode::Standard, Mode::Strict] {
            for diagnostic in check_in("skill", &text, mode) {
                prop_assert!(diagnostic.line.is_none_or(|line| line >= 1));
                prop_assert!(diagnostic.column.is_none_or(|column| column >= 1));
                if let Some(line) = diagnostic.line {
                    let index = usize::try_from(line - 1).unwrap();
                    prop_assert!(index < file_lines.len(), "{diagnostic:?} in {text:?}");
                    let length = file_lines[index].chars().count() as u64;
                    prop_assert!(
                        diagnostic.column.is_none_or(|column| column <= length + 1),
                        "{diagnostic:?} in {text:?}"
                    );
                }
            }
        }
    }
}
