//! Properties of discovery over generated trees.

use super::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn order_does_not_depend_on_creation_order(
        paths in proptest::collection::btree_set("[a-c]{1,2}(/[a-c]{1,2}){0,2}", 1..8),
        seed in any::<u64>(),
    ) {
        let mut forward: Vec<String> = paths.into_iter().collect();
        let mut shuffled = forward.clone();
        let length = shuffled.len();
        for index in 0..length {
            let other = (seed.rotate_left(index as u32) as usize) % length;
            shuffled.swap(index, other);
        }
        let build = |order: &[String]| {
            let workspace = workspace();
            let root = workspace.path().join(".agents/skills");
            for (index, relative) in order.iter().enumerate() {
                named(&root, relative, &format!("s{index}-{}", relative.replace('/', "-")));
            }
            let found = discover(workspace.path());
            found.skills.iter().map(|skill| {
                skill.location().strip_prefix(&root).unwrap().to_path_buf()
            }).collect::<Vec<_>>()
        };
        forward.sort();
        let first = build(&forward);
        let second = build(&shuffled);
        prop_assert_eq!(first, second);
    }
}
