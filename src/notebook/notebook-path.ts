// Which files are notebooks: Read renders them by cell, Edit and Write send them to NotebookEdit.
import path from 'node:path';

export const isNotebookPath = (p: string) => path.extname(p).toLowerCase() === '.ipynb';
