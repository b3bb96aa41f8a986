/** The core's module, under the path sdk/web's tests and modules have always used. */
export type * from '../../core/src/types';
