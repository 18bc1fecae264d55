/** A library of an organization: what every library-scoped key starts with. */
export interface LibraryRef {
  organizationId: string;
  libraryId: string;
}

/** Who acts in which library: the scope of every library-scoped operation once access is checked. */
export interface LibraryScope extends LibraryRef {
  userId: string;
}
