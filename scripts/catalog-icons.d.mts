/** Where scripts/catalog-icons.mjs writes the icons: src/catalog/icons.generated.ts. */
export declare const ICONS_FILE: string;
/** The text of src/catalog/icons.generated.ts for the provider files as they are now. */
export declare function renderIcons(): string;
