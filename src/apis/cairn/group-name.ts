/** The name of the API group Cairn serves. */
export const groupName = 'cairn.dev';
