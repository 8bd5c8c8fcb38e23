/** The shape every language must fill: the same keys, every leaf a string. */
export type MessageTree = { [key: string]: string | MessageTree }
export type Shape<T> = { [K in keyof T]: T[K] extends string ? string : Shape<T[K]> }
