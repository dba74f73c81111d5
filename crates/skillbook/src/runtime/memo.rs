//! What a scope resolved to, kept while its discovery result and the scope stay the same, so
//! preparing a run scans none of the skills: the catalog is rendered once per reader name, the
//! model-visible skills are listed once, and names are looked up in a map.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use crate::catalog::{Catalog, RenderedCatalog};
use crate::discovery::Discovered;
use crate::format::SkillName;
use crate::search::SearchIndex;

use super::RuntimeError;
use super::resolver::Scope;
use super::scope::{ResolvedScope, ScopedSkill};

/// How many scopes are remembered (the oldest is forgotten first).
const CAPACITY: usize = 32;

/// Catalogs by reader name, search tool name and budget.
type Catalogs = HashMap<(String, String, Option<usize>), Option<RenderedCatalog>>;

/// A resolved scope and what runs derive from it.
pub(super) struct Prepared {
    pub(super) resolved: ResolvedScope,
    /// The model-visible skills, in scope order.
    visible: Vec<usize>,
    catalogs: Mutex<Catalogs>,
    /// The skills `activate_skill` offers, with their directories.
    activate: OnceLock<Arc<BTreeMap<SkillName, String>>>,
    /// The model-visible skills' search index, built the first time a run offers search.
    search: OnceLock<Arc<SearchIndex>>,
}

impl Prepared {
    fn new(resolved: ResolvedScope) -> Self {
        let visible = (0..resolved.skills().len())
            .filter(|&position| resolved.skills()[position].is_model_visible())
            .collect();
        Prepared {
            resolved,
            visible,
            catalogs: Mutex::new(HashMap::new()),
            activate: OnceLock::new(),
            search: OnceLock::new(),
        }
    }

    /// The model-visible skills.
    pub(super) fn visible(&self) -> impl Iterator<Item = &ScopedSkill> {
        self.visible
            .iter()
            .filter_map(|&position| self.resolved.skills().get(position))
    }

    /// Whether some skill is model-visible.
    pub(super) fn has_visible(&self) -> bool {
        !self.visible.is_empty()
    }

    /// The catalog naming `reader` (and `search` when it needs the search tool), within
    /// `budget`, rendered the first time it is asked for.
    pub(super) fn catalog(
        &self,
        reader: &str,
        search: &str,
        budget: Option<usize>,
    ) -> Option<RenderedCatalog> {
        let key = (reader.to_owned(), search.to_owned(), budget);
        let mut catalogs = self.catalogs.lock().unwrap_or_else(PoisonError::into_inner);
        catalogs
            .entry(key)
            .or_insert_with(|| {
                let mut catalog = Catalog::from_entries(self.visible().map(ScopedSkill::entry));
                catalog = catalog.reader(reader).search_tool(search);
                if let Some(budget) = budget {
                    catalog = catalog.budget(budget);
                }
                catalog.render()
            })
            .clone()
    }

    /// The search index of the model-visible skills.
    pub(super) fn search_index(&self) -> Arc<SearchIndex> {
        Arc::clone(
            self.search
                .get_or_init(|| Arc::new(SearchIndex::new(self.visible().map(ScopedSkill::entry)))),
        )
    }

    /// The model-visible skills by name, with their directories as the marker shows them.
    pub(super) fn activate(&self) -> Arc<BTreeMap<SkillName, String>> {
        Arc::clone(self.activate.get_or_init(|| {
            Arc::new(
                self.visible()
                    .map(|skill| (skill.name().clone(), skill.directory()))
                    .collect(),
            )
        }))
    }
}

/// One remembered scope.
struct Entry {
    scope: Scope,
    found: Weak<Discovered>,
    prepared: Arc<Prepared>,
}

/// Remembered scopes, shared by clones of a runtime.
#[derive(Default)]
pub(super) struct Memo {
    entries: Mutex<VecDeque<Entry>>,
}

impl Memo {
    /// What `scope` resolves to with the discovery `found`: the remembered result when both are
    /// the same as before, else resolved now (and remembered).
    pub(super) fn prepared(
        &self,
        scope: &Scope,
        found: Arc<Discovered>,
    ) -> Result<Arc<Prepared>, RuntimeError> {
        {
            let entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
            let same = entries.iter().find(|entry| {
                std::ptr::eq(entry.found.as_ptr(), Arc::as_ptr(&found)) && entry.scope == *scope
            });
            if let Some(entry) = same {
                return Ok(Arc::clone(&entry.prepared));
            }
        }
        let weak = Arc::downgrade(&found);
        let prepared = Arc::new(Prepared::new(scope.resolve_found(found)?));
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        entries.retain(|entry| entry.scope != *scope);
        entries.push_back(Entry {
            scope: scope.clone(),
            found: weak,
            prepared: Arc::clone(&prepared),
        });
        while entries.len() > CAPACITY {
            entries.pop_front();
        }
        Ok(prepared)
    }
}
