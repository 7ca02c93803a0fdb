// Package inventory turns what a video survey gathered into an inventory of
// the home (items by room, with counts and volumes) and prices the move
// from it: the recommended estimate. It does no I/O and imports no AWS or
// HTTP package.
//
// The clip processor hands a [Builder] the survey's clips, frames and
// checklist ([Input]) and stores the [Inventory] it returns.
// [ChecklistBuilder] returns exactly the customer's checklist, which
// [ParseChecklist] reads strictly from the capture page's JSON (known item
// keys only, counts 0 to 99, rooms from survey.Rooms or free text of at
// most 60 characters). [FramesBuilder] merges the checklist with what a
// [Detector] found in the frames ([Analyse], [Count], [Merge]): a checklist
// item is never removed or lowered, and a detector that fails never fails
// the survey.
//
// Volumes come from the embedded cube sheet ([Entries], [Lookup],
// [References] lists its sources; [RoomItems], each room's likely rows). [Recommend] prices the inventory's
// volume under the partner's estimate.RateCard; it reports false for an
// empty inventory or an invalid rate card.
//
// Design (the cube sheet's sources and choices, the recommended estimate's
// formula, calibration and a worked example): docs/INVENTORY.md.
package inventory
