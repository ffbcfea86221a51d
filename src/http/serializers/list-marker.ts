/**
 * How a text format finds where a list's items go: the list is encoded with one
 * marker item no object can be, and split around the marker's encoding. So the
 * envelope a streamed list writes is exactly the serializer's own, whatever its fields.
 */

/** A string no item is (items are objects). */
export const listItemsMarker = '\u0000cairn: the items of a list\u0000';

/** The envelope with the marker as its only item, in the place `key` has in it (or last). */
export const withMarker = (envelope: Readonly<Record<string, unknown>>, key: string): Record<string, unknown> => ({
  ...envelope,
  [key]: [listItemsMarker],
});
